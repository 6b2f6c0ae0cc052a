// What the catalogue says of one operation (keyed `METHOD /path`, the path under /api/v1 with
// `{param}`s): what the document cannot read from the route itself. Route config (access, site,
// capability, rate limit) and the route's zod schemas are read from the route.
import type { ErrorCode } from '../../../domain/shared/errorCatalogue.ts';
import type { DocumentedShape } from './documentSchemas.ts';

export interface OperationEntry {
  summary: string;
  /** The rules a caller must know beyond the access level (which is written for every operation). */
  description?: string;
  /** Codes this operation answers besides those its route config and schemas imply (see errorResponses.ts). */
  errors?: ErrorCode[];
  /** The route answers VALIDATION_FAILED with 422 rather than 400 (releases, issuers, ...). */
  unprocessable?: boolean;
  /** Path parameters that name nothing answer something other than NOT_FOUND, or nothing at all. */
  notFound?: ErrorCode | false;
  /** Query parameters a route reads without a schema of its own (the item list parameters): documented only. */
  query?: DocumentedShape;
  /** The success answer, unless the route declares its own 2xx schema (then that one is documented). */
  response?: SuccessResponse;
}

export type SuccessResponse =
  | {
      status?: 200 | 201 | 202;
      /** The shape of `data` in `{ data, meta? }`. */
      data: DocumentedShape;
      meta?: DocumentedShape;
      description?: string;
    }
  /** A body that is not the JSON envelope: text, bytes, HTML, a redirect, nothing. */
  | { status: 200 | 204 | 302 | 304; contentType?: string; raw?: DocumentedShape; description: string };

export type OperationCatalogue = Record<string, OperationEntry>;
