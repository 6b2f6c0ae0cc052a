// GraphQL errors with the spec's codes (HTTP 200, `extensions.code` and `extensions.status`):
// VALIDATION, PERMISSION_DENIED, NOT_FOUND, UNAUTHENTICATED, INVALID_FILTER, INTERNAL. A REST error
// keeps its message and status; its own code stays in `extensions.reason` when the spec's list has
// no closer one (a 409 CONFLICT of a write is VALIDATION with reason CONFLICT).
import { GraphQLError } from 'graphql';
import { AppError } from '../../../domain/shared/appError.ts';

export type GraphqlErrorCode = 'VALIDATION' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'UNAUTHENTICATED' | 'INVALID_FILTER' | 'INTERNAL';

function codeOf(error: AppError): GraphqlErrorCode {
  if (error.status >= 500) return 'INTERNAL';
  switch (error.code) {
    case 'PERMISSION_DENIED':
      return 'PERMISSION_DENIED';
    case 'UNAUTHENTICATED':
      return 'UNAUTHENTICATED';
    case 'NOT_FOUND':
    case 'RECORD_NOT_FOUND':
    case 'SITE_NOT_FOUND':
      return 'NOT_FOUND';
    default:
      return error.path.includes('filter') ? 'INVALID_FILTER' : 'VALIDATION';
  }
}

export function graphqlError(code: GraphqlErrorCode, message: string, status: number, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code, status } });
}

/** What a resolver threw, as the GraphQL error the client sees; anything unexpected is INTERNAL with no detail. */
export function graphqlErrorOf(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof AppError) {
    const code = codeOf(error);
    if (code === 'INTERNAL') return graphqlError('INTERNAL', 'Internal error', 500);
    const reason = code === 'VALIDATION' || code === 'INVALID_FILTER' ? { reason: error.code } : {};
    return graphqlError(code, error.message, error.status, { ...reason, ...(error.path.length > 0 ? { path: error.path } : {}), ...error.extensions });
  }
  return graphqlError('INTERNAL', 'Internal error', 500);
}

const SPEC_CODES: ReadonlySet<string> = new Set(['VALIDATION', 'PERMISSION_DENIED', 'NOT_FOUND', 'UNAUTHENTICATED', 'INVALID_FILTER', 'INTERNAL']);

/** A refusal of graphql-js or yoga (parse, validation, variables) as a VALIDATION error; the spec's own codes stay. */
export function asValidationError(error: unknown): GraphQLError {
  if (!(error instanceof GraphQLError)) return graphqlErrorOf(error);
  const code = error.extensions.code;
  if (typeof code === 'string' && SPEC_CODES.has(code) && typeof error.extensions.status === 'number') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    extensions: { code: 'VALIDATION', status: 400 },
  });
}
