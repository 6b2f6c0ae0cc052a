// The error answers of an operation: the codes its route config and schemas imply (who may call it,
// its input, its path ids, its rate limit) and those its catalogue entry adds, grouped by status,
// each status an error envelope whose `code` lists exactly those codes.
import { errorCatalogue, UNPROCESSABLE_STATUS, type ErrorCode } from '../../../domain/shared/errorCatalogue.ts';
import type { AccessLevel, SiteRequirement } from '../routeConfig.ts';
import { componentRef } from './components.ts';
import type { JsonSchema } from './documentSchemas.ts';
import type { OperationEntry } from './operationEntry.ts';

export interface RouteFacts {
  access: AccessLevel;
  site: SiteRequirement | undefined;
  capability: string | undefined;
  rateLimited: boolean;
  hasBody: boolean;
  hasPathParameters: boolean;
}

export function errorCodesOf(route: RouteFacts, entry: OperationEntry | undefined): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(['INTERNAL', 'SERVICE_UNAVAILABLE']);
  if (route.site === 'required') codes.add('SITE_NOT_FOUND');
  if (route.access === 'instance') codes.add('UNAUTHENTICATED');
  else if (route.access !== 'public') {
    codes.add('UNAUTHENTICATED').add('TOKEN_EXPIRED');
    if (route.access !== 'bearer' || route.capability) codes.add('PERMISSION_DENIED');
  }
  // Every route checks X-Svc-API-Version (400 VALIDATION_FAILED), its input or not.
  codes.add('VALIDATION_FAILED');
  if (route.hasBody) codes.add('PAYLOAD_TOO_LARGE').add('UNSUPPORTED_MEDIA_TYPE');
  if (route.hasPathParameters && entry?.notFound !== false) codes.add(entry?.notFound || 'NOT_FOUND');
  if (route.rateLimited) codes.add('RATE_LIMITED');
  for (const code of entry?.errors ?? []) codes.add(code);
  return codes;
}

function statusOf(code: ErrorCode, unprocessable: boolean): number {
  return code === 'VALIDATION_FAILED' && unprocessable ? UNPROCESSABLE_STATUS : errorCatalogue[code].status;
}

/** The error responses, keyed by status, in the form @fastify/swagger takes a response with content. */
export function errorResponses(codes: Set<ErrorCode>, unprocessable: boolean): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  const add = (status: number, code: ErrorCode) => byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of codes) add(statusOf(code, unprocessable), code);
  // On a 422 route the body's errors are 422, while a bad X-Svc-API-Version header stays 400.
  if (unprocessable && codes.has('VALIDATION_FAILED')) add(errorCatalogue.VALIDATION_FAILED.status, 'VALIDATION_FAILED');
  const responses: Record<string, JsonSchema> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    statusCodes.sort();
    responses[String(status)] = {
      description: statusCodes.map((code) => `\`${code}\`: ${errorCatalogue[code].when}`).join('; '),
      content: {
        'application/json': {
          schema: {
            allOf: [
              componentRef('ErrorEnvelope'),
              { properties: { errors: { items: { properties: { code: { enum: statusCodes } } } } } },
            ],
          },
        },
      },
    };
  }
  return responses;
}
