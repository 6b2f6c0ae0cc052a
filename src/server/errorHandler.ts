// The one place errors become the spec's envelope: { errors: [{ code, message, path, extensions }] },
// for the routes' errors, Fastify's own refusals (a bad URL, an over-long parameter) and its 404/405.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/shared/appError.ts';
import type { ErrorCode } from '../../domain/shared/errorCatalogue.ts';
import { REQUIRED_MESSAGE } from '../../domain/shared/zodMessages.ts';
import { isDatabaseUnavailable } from '../../infra/postgres/database.ts';

export interface ErrorBody {
  errors: { code: string; message: string; path: (string | number)[]; extensions: Record<string, unknown> }[];
}

export function errorBody(error: AppError): ErrorBody {
  return { errors: [{ code: error.code, message: error.message, path: error.path, extensions: error.extensions }] };
}

/** The catalogue's codes for the 4xx statuses Fastify raises itself; any other 4xx is a bad input. */
const fastifyStatusCodes: Partial<Record<number, ErrorCode>> = {
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'REQUEST_HEADERS_TOO_LARGE',
};

function codeOfClientStatus(status: number): ErrorCode {
  return fastifyStatusCodes[status] ?? 'VALIDATION_FAILED';
}

/** The JSON API's answer to a body of another content type: 415, naming the type it takes. */
export function unsupportedMediaType(sent: string | undefined): AppError {
  const type = sent?.split(';')[0]?.trim().toLowerCase() || 'none';
  const how = type === 'none' ? 'without a content type' : `as ${type}`;
  return new AppError('UNSUPPORTED_MEDIA_TYPE', `This route takes application/json; the body was sent ${how}`, {
    path: ['body'],
    extensions: { expected: ['application/json'], received: type },
  });
}

/** Seconds a client is asked to wait before retrying while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export function toAppError(error: unknown, request?: FastifyRequest): AppError | null {
  if (error instanceof AppError) return error;
  // PostgreSQL down or restarting is not the request's fault nor a bug: 503, retry later.
  if (isDatabaseUnavailable(error)) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry later', {
      extensions: { dependency: 'database', retryAfter: DATABASE_RETRY_AFTER_SECONDS },
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      cause: error,
    });
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const first = error.validation[0];
    const issuePath = (first?.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
    const path = [where === 'querystring' ? 'query' : where, ...issuePath];
    // Fastify validates a request without a body as null: for the route that needs one, it is missing.
    const missingBody = where === 'body' && issuePath.length === 0 && request !== undefined && request.body === undefined;
    const message = missingBody ? REQUIRED_MESSAGE : (first?.message ?? 'invalid input');
    return new AppError('VALIDATION_FAILED', `${path.join('.')}: ${message}`, { path });
  }
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'The body is not valid JSON', { path: ['body'] });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than the limit', { path: ['body'] });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Where the route's scope parses JSON, that is what it takes; a scope of its own (raw uploads) says so itself.
      if (request?.server.hasContentTypeParser('application/json')) return unsupportedMediaType(request.headers['content-type']);
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', { path: ['body'] });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'Invalid content length', { path: ['body'] });
    // The router's refusals, before any route is chosen (Fastify's frameworkErrors).
    case 'FST_ERR_BAD_URL':
      return new AppError('VALIDATION_FAILED', 'The path is not valid percent-encoded UTF-8', { path: ['params'] });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('URI_TOO_LONG', 'A path parameter is longer than the router allows', { path: ['params'] });
    default:
      break;
  }
  if (fastifyError.validation) {
    return new AppError('VALIDATION_FAILED', fastifyError.message, { path: [fastifyError.validationContext ?? 'body'] });
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError(codeOfClientStatus(fastifyError.statusCode), fastifyError.message);
  }
  return null;
}

/**
 * Fastify's frameworkErrors: what its router refuses before a route is chosen (a bad URL encoding,
 * a path parameter over maxParamLength, a failed async constraint). No hook runs for these, so the
 * request id is set here.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('X-Request-Id', request.id);
  return handleError(error, request, reply);
}

// OPTIONS is not probed: CORS's catch-all OPTIONS route (src/server/cors.ts) matches every path.
const ROUTABLE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * No route for this method and path: 405 with `Allow` when the path has routes for other methods, 404
 * otherwise. An OPTIONS that CORS did not answer (no Origin, or one that is not allowed) on a served
 * path is 204 with `Allow` and no CORS header: a browser's preflight then fails, as it should.
 */
export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0]!;
  const allowed = ROUTABLE_METHODS.filter((method) => request.server.findRoute({ method, url: path }) !== null);
  if (request.method === 'OPTIONS' && allowed.length > 0) {
    return reply.status(204).header('Allow', [...allowed, 'OPTIONS'].join(', ')).send();
  }
  // A route may answer 404 itself (a missing static file): its own method is then among the allowed.
  if (allowed.length > 0 && !allowed.includes(request.method as (typeof ROUTABLE_METHODS)[number])) {
    return handleError(
      new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, {
        extensions: { allowed },
        headers: { Allow: allowed.join(', ') },
      }),
      request,
      reply,
    );
  }
  return handleError(new AppError('NOT_FOUND', `No route ${request.method} ${path}`), request, reply);
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error, request);
  if (appError) {
    // Logged (the outage's lines are throttled by the logger, src/boot/outageLogThrottle.ts).
    if (appError.code === 'SERVICE_UNAVAILABLE') request.log.warn({ err: appError.cause ?? appError }, 'a dependency is unavailable: answering 503');
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    return reply.status(appError.status).send(errorBody(appError));
  }
  request.log.error({ err: error }, 'unexpected failure');
  return reply.status(500).send({
    errors: [{ code: 'INTERNAL', message: 'Internal error', path: [], extensions: { requestId: request.id } }],
  });
}
