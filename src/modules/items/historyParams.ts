// Path and query schemas shared by the item history routes.
import { z } from 'zod';
import { VERSION_KEY_PATTERN } from '../../../domain/content/versions/events.ts';

export const itemParams = z.object({
  collection: z.string().min(1).max(64),
  id: z.string().min(1).max(255),
});

export const versionKey = z.string().regex(VERSION_KEY_PATTERN, 'lowercase letters, digits, _ and -, 1 to 64 characters');

export const versionParams = itemParams.extend({ key: versionKey });

export const versionName = z.string().trim().min(1).max(200);

/** A pinned field: a relation field, or `*` (the item itself). */
export const pinField = z.string().regex(/^(\*|[A-Za-z0-9_]{1,64})$/, 'a field name or *');

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(25),
  page: z.coerce.number().int().min(1).default(1),
});

/** Like the item routes: signed-in principals, counted against the items read / write limits. */
export const historyReadRoute = { site: 'required' as const, access: 'bearer' as const, rateLimit: 'itemsRead' as const };
export const historyWriteRoute = { site: 'required' as const, access: 'bearer' as const, rateLimit: 'itemsWrite' as const };
