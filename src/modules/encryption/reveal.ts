// Reading sealed values (docs/privacy.md): the pii/phi fields of stored contents hold references to
// the sensitive value store. A reader with `read_decrypted` on a field gets its value (null once the
// value was erased); any other reader gets MASKED. A value that does not open fails the request
// closed with 500 DECRYPTION_FAILED, audited as `decryption_failed`, never a placeholder.
import { MASKED, sealedIdOf } from '../../../domain/privacy/sealedReference.ts';
import type { DecryptionFailureEvent } from '../../../domain/privacy/events.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { recordDecider } from '../../../domain/shared/recordDecider.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { ReadPermissions } from '../../access/itemAccess.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { DecryptionFailure, loadSealed, openSealed } from './sealedValues.ts';

/** Whether the reader sees the value of `field` of `record` (its content and `id`) rather than the mask. */
export type MayDecrypt = (collection: string, field: string, record: Readonly<Record<string, unknown>>) => boolean;

export const DECRYPT_EVERYTHING: MayDecrypt = () => true;
const EMPTY: Readonly<Record<string, unknown>> = {};

/** Administrators decrypt everything; others where a `read_decrypted` rule names the field. */
export function mayDecryptFor(permissions: ReadPermissions | undefined): MayDecrypt {
  return permissions ? (collection, field, record) => permissions.mayDecrypt(collection, field, record) : DECRYPT_EVERYTHING;
}

export interface RevealRecord {
  itemId: string;
  content: Record<string, unknown> | null | undefined;
  /**
   * The whole record `read_decrypted` conditions are judged on, when `content` lacks its structural
   * fields (an items row's `data`), built only when a condition is judged; default: `content` with `id`.
   */
  record?: () => Readonly<Record<string, unknown>>;
}

export type RevealApp = Pick<AppContext, 'database' | 'projections' | 'keyRing'>;

export interface Revealer {
  /**
   * `records`' contents with their pii/phi fields opened or masked: new objects where a field
   * changed, the same object otherwise (and always for a collection without such fields).
   */
  reveal(reader: Queryable, collection: CollectionSchema | undefined, records: readonly RevealRecord[]): Promise<(Record<string, unknown> | null | undefined)[]>;
}

const failuresDecider = recordDecider<DecryptionFailureEvent>();

function failureStream(siteId: string, now: Date): string {
  return streamId(siteId, 'decryption-failures', now.toISOString().slice(0, 10));
}

/** Audits a value that would not open, then answers 500 DECRYPTION_FAILED. */
export async function failClosed(app: RevealApp, siteId: string, failure: DecryptionFailure, metadata: EventMetadata): Promise<never> {
  const { collection, itemId, field } = failure.target;
  await handleCommand(app, {
    siteId,
    streamId: failureStream(siteId, new Date()),
    decider: failuresDecider,
    command: { type: 'record', events: [{ type: 'decryption_failed', data: { collection, itemId, field, valueId: failure.valueId, keyId: failure.keyId, reason: failure.message } }] },
    metadata,
    load: 'none',
    lock: true,
  });
  throw new AppError('DECRYPTION_FAILED', `The value of "${field}" of ${collection} "${itemId}" could not be decrypted`, {
    extensions: { collection, itemId, field },
  });
}

export function createRevealer(app: RevealApp, siteId: string, mayDecrypt: MayDecrypt, metadata: EventMetadata): Revealer {
  return {
    async reveal(reader, collection, records) {
      if (!collection || collection.sensitiveFields.size === 0) return records.map((record) => record.content);
      const fields = [...collection.sensitiveFields.keys()];
      const wanted = new Set<string>();
      // What read_decrypted conditions are judged on: the stored record (pii/phi fields sealed).
      const judged = mayDecrypt === DECRYPT_EVERYTHING ? [] : records.map(({ itemId, content, record }) => record?.() ?? (content ? { ...content, id: itemId } : {}));
      records.forEach(({ content }, index) => {
        if (!content) return;
        for (const field of fields) {
          if (!mayDecrypt(collection.name, field, judged[index] ?? EMPTY)) continue;
          const id = sealedIdOf(content[field]);
          if (id) wanted.add(id);
        }
      });
      const stored = await loadSealed(reader, siteId, [...wanted]);
      const revealed: (Record<string, unknown> | null | undefined)[] = [];
      for (const [index, { itemId, content }] of records.entries()) {
        if (!content || !fields.some((field) => content[field] !== undefined && content[field] !== null)) {
          revealed.push(content);
          continue;
        }
        const copy = { ...content };
        for (const field of fields) {
          const value = content[field];
          if (value === undefined || value === null) continue;
          if (!mayDecrypt(collection.name, field, judged[index] ?? EMPTY)) {
            copy[field] = MASKED;
            continue;
          }
          const id = sealedIdOf(value);
          // A value written before its field was classed pii/phi was never sealed: it reads as is.
          if (!id) continue;
          const row = stored.get(id);
          if (!row) {
            copy[field] = null;
            continue;
          }
          try {
            copy[field] = openSealed(app.keyRing, siteId, row, { collection: collection.name, itemId, field });
          } catch (error) {
            if (error instanceof DecryptionFailure) await failClosed(app, siteId, error, metadata);
            throw error;
          }
        }
        revealed.push(copy);
      }
      return revealed;
    },
  };
}
