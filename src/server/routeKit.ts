// What every area's routes share (the route kit): the caller of a command, the route config of site
// administration, ids in paths, paging, and the 422 answer of the routes the spec gives it. Areas
// import this module, serverDeps.ts and errorHandler.ts from src/server/, nothing else of it.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, errors } from '../../domain/shared/appError.ts';
import { isUuid } from '../../domain/shared/uuid.ts';
import type { CommandRunOptions } from '../runtime/commandRegistry.ts';
import { handleError, toAppError } from './errorHandler.ts';

/** Who runs a command a route calls (the command registry): the request's site, principal, metadata and access. */
export function commandCaller(request: FastifyRequest): CommandRunOptions {
  return {
    siteId: request.siteId,
    principal: request.principal,
    metadata: request.metadata,
    access: () => request.access(),
    client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
  };
}

/** The route config of a site's administration routes. */
export const SITE_ADMIN = { site: 'required', access: 'siteAdmin' } as const;

/** A path id that is not a UUID names nothing: 404, like an unknown one (never a 400 or a SQL error). */
export function uuidOr404(id: string, what: string): string {
  if (!isUuid(id)) throw errors.notFound(`${what} not found`);
  return id;
}


/** Items per page of a list when `limit` is absent, and at most (the spec's Limits). */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 200;

/**
 * The paging parameters of every paged list but items' (`?limit=&page=`, 1-indexed); extend it with a
 * list's filters. Items keep the spec's `{ total, limit, offset }` (src/modules/items).
 */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  page: z.coerce.number().int().min(1).default(1),
});
export type PageQuery = z.infer<typeof pageQuery>;

/** The `meta` of a paged list: the spec's envelope `{ total, page, pageSize }`. */
export function pageMeta(total: number, query: PageQuery): { total: number; page: number; pageSize: number } {
  return { total, page: query.page, pageSize: query.limit };
}

/** The response schema of a paged list's `meta`. */
export const pageMetaSchema = z.object({ total: z.number(), page: z.number(), pageSize: z.number() });

/**
 * The error handler of routes the spec answers with 422 for a body that does not match (releases,
 * issuers): schema errors of the body become 422 `VALIDATION_FAILED`; everything else as usual.
 */
export function unprocessableOnInvalidBody(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError?.code === 'VALIDATION_FAILED' && appError.status === 400 && appError.path[0] === 'body') {
    return handleError(new AppError('VALIDATION_FAILED', appError.message, { path: appError.path, unprocessable: true }), request, reply);
  }
  return handleError(error, request, reply);
}

/**
 * The error handler of routes whose area answers a body that does not match with its own code (cloud
 * sync: 400 `VALIDATION_ERROR`, as its commands do): schema errors of the body take that code.
 */
export function validationErrorOnInvalidBody(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError?.code === 'VALIDATION_FAILED' && appError.status === 400 && appError.path[0] === 'body') {
    return handleError(new AppError('VALIDATION_ERROR', appError.message, { path: appError.path }), request, reply);
  }
  return handleError(error, request, reply);
}

/**
 * Parses `application/x-www-form-urlencoded` bodies into an object of strings (the last of repeated
 * keys), in the scope of the routes that take forms from outside callers: one-click unsubscribes, webhooks.
 */
export function acceptFormBodies(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
