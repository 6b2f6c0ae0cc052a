// The shapes of the presets routes (docs/presets.md): what they take and what they answer.
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { pageQuery } from '../../server/routeKit.ts';

/** At most this much JSON of `options`, and this deep. */
export const MAX_OPTIONS_BYTES = 16 * 1024;
export const MAX_OPTIONS_DEPTH = 16;

const listOfNames = (max: number) => z.array(z.string().min(1).max(500)).max(max);

/**
 * A preset's query, in the list query language of the items routes as JSON: `fields` and `sort` as
 * lists, `filter` as the JSON filter, `limit` 1–200, `search` text. Its names are checked against the
 * collection's fields by the handlers (errors under `body.query`).
 */
export const presetQuerySchema = z
  .object({
    fields: listOfNames(200).optional(),
    filter: z.record(z.string(), z.unknown()).optional(),
    sort: listOfNames(20).optional(),
    limit: z.number().int().min(1).max(200).optional(),
    search: z.string().max(500).optional(),
  })
  .strict();
export type PresetQuery = z.infer<typeof presetQuerySchema>;

/** The fields a create takes (`collection` and `layout` required) and a PATCH (any of them). */
export const presetFields = {
  collection: z.string().min(1).max(64),
  bookmark: z.string().trim().min(1).max(200).nullable(),
  userId: uuidSchema.nullable(),
  roleId: uuidSchema.nullable(),
  layout: z.string().trim().min(1).max(50),
  query: presetQuerySchema,
  options: z.record(z.string(), z.unknown()),
  icon: z.string().trim().min(1).max(100).nullable(),
  color: z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be #rgb or #rrggbb').nullable(),
};
export const createPresetBody = z
  .object(presetFields)
  .partial({ bookmark: true, userId: true, roleId: true, query: true, options: true, icon: true, color: true })
  .strict();
export type CreatePresetBody = z.infer<typeof createPresetBody>;
export const updatePresetBody = z.object(presetFields).partial().strict();
export type UpdatePresetBody = z.infer<typeof updatePresetBody>;

export const presetScopeSchema = z.enum(['user', 'role', 'global']);

/** A preset as the routes answer it. */
export const presetSchema = z.object({
  id: z.string(),
  collection: z.string(),
  bookmark: z.string().nullable(),
  userId: z.string().nullable(),
  roleId: z.string().nullable(),
  scope: presetScopeSchema,
  layout: z.string(),
  query: z.record(z.string(), z.unknown()),
  options: z.record(z.string(), z.unknown()),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** A preset answered to the caller it applies to: which of their scopes it came from. */
export const appliedPresetSchema = presetSchema.extend({ sourceScope: presetScopeSchema });

export const listPresetsQuery = pageQuery.extend({ collection: z.string().min(1).max(64).optional() });
export const collectionQuery = z.object({ collection: z.string().min(1).max(64) });
