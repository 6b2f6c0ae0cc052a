// What a UUID is, once for the whole service: 8-4-4-4-12 hexadecimal digits, in either case, of any
// version or variant. That is the text PostgreSQL's uuid type reads, so a value that passes can be
// cast with ::uuid without an SQL error; every id the service makes (v4, v7, name-based v8) passes.
import { z } from 'zod';

/** Also a POSIX pattern (`UUID_PATTERN.source` with PostgreSQL's `~`): no flags, both cases spelled out. */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

/** The same check in request schemas; OpenAPI shows it as `format: uuid`. */
export const uuidSchema = z.string().regex(UUID_PATTERN, 'Invalid UUID').meta({ format: 'uuid' });
