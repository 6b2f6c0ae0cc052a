// Checks an item body against its collection and hashes its hash fields, outside any transaction
// (hashing is slow). Item writes use it, and so do writes of a version's data, which promote replays
// as a PATCH.
import { checkItemInput } from '../../../domain/content/itemInput.ts';
import type { ItemChanges } from '../../../domain/content/itemDecider.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import type { CollectionSchema, SiteSchema } from '../../schema/siteSchema.ts';

export interface PrepareOptions {
  mode: 'create' | 'patch' | 'replace';
  locale: string | null;
  itemId?: string;
  basePath: (string | number)[];
}

export async function prepareChanges(
  schema: SiteSchema,
  collection: CollectionSchema,
  body: unknown,
  options: PrepareOptions,
): Promise<{ id: string | null; changes: ItemChanges }> {
  const checked = checkItemInput(
    body,
    {
      fields: collection.fields,
      aliasFields: collection.aliasFields,
      mode: options.mode,
      locale: options.locale,
      defaultLanguage: schema.defaultLanguage,
      ...(options.itemId !== undefined ? { itemId: options.itemId } : {}),
    },
    options.basePath,
  );
  const values = { ...checked.values };
  await Promise.all(
    Object.entries(checked.hashes).map(async ([field, clear]) => {
      values[field] = await hashPassword(clear);
    }),
  );
  return { id: checked.id, changes: { values, keepHashes: checked.keepHashes, translations: checked.translations } };
}
