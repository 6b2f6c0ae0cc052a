// Events of view presets (docs/presets.md): one stream per preset (`<siteId>/preset/<id>`). A preset
// carries its whole content in each event, so the read model and a rebuild never merge partial changes.
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../shared/eventSchema.ts';

/** A preset as stored: its query is checked against the collection at the edge (src/modules/presets), kept whole here. */
export const presetContentSchema = z.object({
  collection: z.string(),
  /** null: the scope's default view of the collection; a name: a saved view (a bookmark). */
  bookmark: z.string().nullable(),
  userId: z.string().nullable(),
  roleId: z.string().nullable(),
  layout: z.string(),
  query: contentObjectSchema,
  options: contentObjectSchema,
  icon: z.string().nullable(),
  color: z.string().nullable(),
});
export type PresetContent = z.infer<typeof presetContentSchema>;

export const presetEventSchemas = {
  'preset.created': z.object({ presetId: z.string(), preset: presetContentSchema }),
  /** The preset as it is after the change, and the keys that changed. */
  'preset.updated': z.object({ presetId: z.string(), preset: presetContentSchema, changed: z.array(z.string()) }),
  'preset.deleted': z.object({ presetId: z.string() }),
};
export type PresetEvent = EventOf<typeof presetEventSchemas>;

export type PresetScope = 'user' | 'role' | 'global';

/** The scope a preset's owner columns give: `userId` set is the user's, `roleId` set the role's, neither global. */
export function scopeOf(preset: { userId: string | null; roleId: string | null }): PresetScope {
  if (preset.userId !== null) return 'user';
  if (preset.roleId !== null) return 'role';
  return 'global';
}
