// Events of the named-version (draft) aggregate and of item pins: the zod schema of each event's
// data and the event types inferred from them. A version is one stream per (item, key):
// <site>/item-version/<collection>/<itemId>/<key>; an item's pins are one stream:
// <site>/item-pins/<collection>/<itemId>.
import { z } from 'zod';
import { contentObjectSchema, type EventOf } from '../../shared/eventSchema.ts';

/** An item's content fields (never walked: any key, any value). */
const itemDataSchema = contentObjectSchema;
export type ItemData = z.infer<typeof itemDataSchema>;

const versionKey = { collection: z.string(), itemId: z.string(), key: z.string() };

export const versionEventSchemas = {
  /** `data`: the item's content fields when the version was made; `baseVersion`: main's version then. */
  'version.created': z.object({ ...versionKey, name: z.string(), data: itemDataSchema, baseVersion: z.number() }),
  /** `data`: the version's whole data after the change (absent when only the name changed). */
  'version.updated': z.object({ ...versionKey, name: z.string().optional(), data: itemDataSchema.optional(), changes: itemDataSchema.optional() }),
  'version.deleted': z.object(versionKey),
  /**
   * `mainVersion`: main's version after the promotion, `data`: main's content fields then; both
   * become the version's new base. `revisionId`: the revision the promotion wrote (null if none).
   */
  'version.promoted': z.object({
    ...versionKey,
    mainVersion: z.number(),
    data: itemDataSchema,
    revisionId: z.string().nullable(),
    mainDiverged: z.boolean(),
  }),
};

export type VersionEvent = EventOf<typeof versionEventSchemas>;

const pinKey = { collection: z.string(), itemId: z.string(), field: z.string() };

export const pinEventSchemas = {
  'pin.created': z.object({ ...pinKey, revisionId: z.string(), targetCollection: z.string(), targetItemId: z.string() }),
  'pin.released': z.object(pinKey),
};

export type PinEvent = EventOf<typeof pinEventSchemas>;

/** Named version keys: what the URL carries. */
export const VERSION_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;
