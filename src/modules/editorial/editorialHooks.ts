// The editorial workflow's item-write hook (docs/publishing.md, "Editorial review"), declared in the
// area's manifest (src/modules/index.ts) and registered when the context is built:
// on a gated collection, publishing needs an approval of the item as it stands, and an edit voids one.
import type { AppContext } from '../../runtime/context.ts';
import type { ItemWrite, ItemWriteHook } from '../../runtime/itemHooks.ts';
import { assertEditorialGate, voidReviewOnEdit } from './gate.ts';

/** The origin of an approval's own publish write (handlers.ts): neither gated nor voiding the review it completes. */
export const EDITORIAL_APPROVAL_ORIGIN = 'editorial.approval';

/** Changes of the item itself (not its draft) other than an approval's publish are reviewed. */
const reviewed = (write: ItemWrite) => write.target === 'main' && write.origin !== EDITORIAL_APPROVAL_ORIGIN;

export function editorialItemHook(context: AppContext): ItemWriteHook {
  return {
    name: 'editorial',
    // Creates and deletes are not gated: a gate on publishing, and a review of an item that changes.
    kinds: ['update', 'revert', 'promote'],
    collections: (collection) => collection.meta.editorialWorkflow === true,
    async beforeWrite(write) {
      if (reviewed(write)) await assertEditorialGate(write.tx, write.siteId, write.collection.name, write.itemId, write.changes.status);
    },
    async afterWrite(write) {
      if (!reviewed(write)) return;
      await voidReviewOnEdit(context, write.tx, { siteId: write.siteId, collection: write.collection.name, itemId: write.itemId, version: write.version, metadata: write.metadata });
    },
  };
}
