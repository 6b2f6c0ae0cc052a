// Events of files and media: a file record per stored object (registered after an upload, its
// title, tags and folder changed, deleted), and the image transform presets of a site.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const fileChangesSchema = z.object({
  title: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  folder: z.string().nullable().optional(),
});
export type FileChanges = z.infer<typeof fileChangesSchema>;

/** The parameters of an image transform (src/modules/files/transformParams.ts checks them). */
export const transformDslSchema = z.record(z.string(), z.unknown());

export const presetChangesSchema = z.object({ key: z.string().optional(), name: z.string().optional(), dsl: transformDslSchema.optional() });
export type PresetChanges = z.infer<typeof presetChangesSchema>;

export const fileEventSchemas = {
  'file.registered': z.object({
    fileId: z.string(),
    /** The object's key within the site's namespace of the storage. */
    key: z.string(),
    filename: z.string(),
    title: z.string().nullable(),
    type: z.string(),
    size: z.number().int(),
    tags: z.array(z.string()),
    folder: z.string().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    /** How it came: a presigned or signed upload registered by POST /files, or raw bytes to POST /media/:key. */
    source: z.enum(['upload', 'media']),
  }),
  'file.updated': z.object({ fileId: z.string(), changes: fileChangesSchema }),
  'file.deleted': z.object({ fileId: z.string(), key: z.string() }),
  'transform_preset.created': z.object({ presetId: z.string(), key: z.string(), name: z.string(), dsl: transformDslSchema }),
  'transform_preset.updated': z.object({ presetId: z.string(), changes: presetChangesSchema }),
  'transform_preset.deleted': z.object({ presetId: z.string(), key: z.string() }),
};
export type FileEvent = EventOf<typeof fileEventSchemas>;
