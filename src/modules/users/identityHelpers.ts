// Small helpers shared by the identity areas' routes and handlers.
import { errors } from '../../../domain/shared/appError.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';

/**
 * Whether `error` is PostgreSQL's unique violation of `constraint`: a read model's unique index
 * caught a concurrent writer that passed the same pre-check (the command's transaction rolls back).
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string } | null;
  return pgError?.code === '23505' && pgError.constraint === constraint;
}

/** A path id that is not a UUID names nothing: 404, like an unknown one (never a 400 or a SQL error). */
export function uuidOr404(id: string, what: string): string {
  if (!isUuid(id)) throw errors.notFound(`${what} not found`);
  return id;
}
