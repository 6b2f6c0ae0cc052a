// The one place errors become the spec's envelope: { errors: [{ code, message, path, extensions }] }.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../domain/shared/appError.ts';
import type { ErrorCode } from '../../domain/shared/errorCatalogue.ts';

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

export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'body';
    const first = error.validation[0];
    const issuePath = (first?.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
    const path = [where === 'querystring' ? 'query' : where, ...issuePath];
    return new AppError('VALIDATION_FAILED', `${path.join('.')}: ${first?.message ?? 'invalid input'}`, { path });
  }
  const fastifyError = error as FastifyError;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'The body is not valid JSON', { path: ['body'] });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than the limit', { path: ['body'] });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type', { path: ['body'] });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'Invalid content length', { path: ['body'] });
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

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const appError = toAppError(error);
  if (appError) {
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    return reply.status(appError.status).send(errorBody(appError));
  }
  request.log.error({ err: error }, 'unexpected failure');
  return reply.status(500).send({
    errors: [{ code: 'INTERNAL', message: 'Internal error', path: [], extensions: { requestId: request.id } }],
  });
}
