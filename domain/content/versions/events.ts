// Events of the named-version (draft) aggregate and of item pins. A version is one stream per
// (item, key): <site>/item-version/<collection>/<itemId>/<key>; an item's pins are one stream:
// <site>/item-pins/<collection>/<itemId>.

export type ItemData = Record<string, unknown>;

export type VersionEvent =
  | {
      type: 'version.created';
      /** `data`: the item's content fields when the version was made; `baseVersion`: main's version then. */
      data: { collection: string; itemId: string; key: string; name: string; data: ItemData; baseVersion: number };
    }
  | {
      type: 'version.updated';
      /** `data`: the version's whole data after the change (absent when only the name changed). */
      data: { collection: string; itemId: string; key: string; name?: string; data?: ItemData; changes?: ItemData };
    }
  | { type: 'version.deleted'; data: { collection: string; itemId: string; key: string } }
  | {
      type: 'version.promoted';
      /**
       * `mainVersion`: main's version after the promotion, `data`: main's content fields then; both
       * become the version's new base. `revisionId`: the revision the promotion wrote (null if none).
       */
      data: { collection: string; itemId: string; key: string; mainVersion: number; data: ItemData; revisionId: string | null; mainDiverged: boolean };
    };

export const VERSION_EVENT_TYPES = ['version.created', 'version.updated', 'version.deleted', 'version.promoted'] as const;

export type PinEvent =
  | {
      type: 'pin.created';
      data: { collection: string; itemId: string; field: string; revisionId: string; targetCollection: string; targetItemId: string };
    }
  | { type: 'pin.released'; data: { collection: string; itemId: string; field: string } };

export const PIN_EVENT_TYPES = ['pin.created', 'pin.released'] as const;

/** Named version keys: what the URL carries. */
export const VERSION_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;
