// What every area's routes share (the route kit): the route config of site administration, ids in
// paths, and the uniqueness a read model's index guards. Areas import this module, serverDeps.ts and
// errorHandler.ts from src/server/, nothing else of it.
import { errors } from '../../domain/shared/appError.ts';
import { isUuid } from '../../domain/shared/uuid.ts';

/** The route config of a site's administration routes. */
export const SITE_ADMIN = { site: 'required', access: 'siteAdmin' } as const;

/** A path id that is not a UUID names nothing: 404, like an unknown one (never a 400 or a SQL error). */
export function uuidOr404(id: string, what: string): string {
  if (!isUuid(id)) throw errors.notFound(`${what} not found`);
  return id;
}

/**
 * Whether `error` is PostgreSQL's unique violation of `constraint`: a read model's unique index
 * caught a concurrent writer that passed the same pre-check (the command's transaction rolls back).
 */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string } | null;
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
