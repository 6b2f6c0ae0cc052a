// The event sealer of item and version events: every value of a pii/phi field in an event's content
// (an item's snapshot, delta and draft; a version's data and changes) goes to the sensitive value
// store, and the event carries its reference instead. A reference the record's field already holds
// (an unchanged field, a revert to an earlier revision) is kept; any other reference is refused
// (400); anything else is a value and is sealed.
import { sealedIdOf, sealedReference } from '../../../domain/privacy/sealedReference.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { NewEvent } from '../../../domain/shared/events.ts';
import type { KeyRing } from '../../../infra/crypto/keyRing.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { EventSealer } from '../../runtime/commandHandler.ts';
import type { SchemaCache } from '../../schema/schemaCache.ts';
import { readEncryptionSettings } from './encryptionSettings.ts';
import { insertSealed, sealValue, type SealedRow, type SealMode } from './sealedValues.ts';

/** The content objects of each event type that carries an item's field values. */
const CONTENT_KEYS: Readonly<Record<string, readonly string[]>> = {
  'item.created': ['snapshot', 'delta', 'draft'],
  'item.updated': ['snapshot', 'delta', 'draft'],
  'item.deleted': ['snapshot', 'delta', 'draft'],
  'item.restored': ['snapshot', 'delta', 'draft'],
  'item.reverted': ['snapshot', 'delta', 'draft'],
  'item.promoted': ['snapshot', 'delta', 'draft'],
  'item.hard_deleted': ['snapshot', 'delta', 'draft'],
  'version.created': ['data'],
  'version.updated': ['data', 'changes'],
  'version.promoted': ['data'],
};

interface Found {
  event: number;
  key: string;
  field: string;
  value: unknown;
}

export interface ItemSealerContext {
  schemas: SchemaCache;
  keyRing: KeyRing;
}

/** The sealer for item and version commands of `siteId` (CommandRequest.seal, StreamStartRequest.seal). */
export function itemEventSealer(context: ItemSealerContext, siteId: string): EventSealer {
  return async <Event extends NewEvent>(tx: Queryable, events: Event[]): Promise<Event[]> => {
    const schema = await context.schemas.site(siteId, tx);
    const found: Found[] = [];
    events.forEach((event, index) => {
      const keys = CONTENT_KEYS[event.type];
      const data = event.data as { collection?: string; [key: string]: unknown };
      const collection = keys && data.collection !== undefined ? schema.collections.get(data.collection) : undefined;
      if (!keys || !collection || collection.sensitiveFields.size === 0) return;
      for (const key of keys) {
        const content = data[key] as Record<string, unknown> | undefined | null;
        if (!content) continue;
        for (const field of collection.sensitiveFields.keys()) {
          const value = content[field];
          if (value !== undefined && value !== null) found.push({ event: index, key, field, value });
        }
      }
    });
    if (found.length === 0) return events;
    const itemOf = (at: Found) => String((events[at.event]!.data as { itemId: string }).itemId);
    const collectionOf = (at: Found) => (events[at.event]!.data as { collection: string }).collection;
    const kept = await heldReferences(tx, siteId, found.map((at) => ({ id: sealedIdOf(at.value), collection: collectionOf(at), itemId: itemOf(at), field: at.field })));
    const settings = await readEncryptionSettings(tx, siteId, context.keyRing);
    const mode: SealMode = { keyId: settings.keyId, envelope: settings.envelope };
    const rows: SealedRow[] = [];
    // One value written to the snapshot and the delta of an event is one sealed value.
    const sealedByValue = new Map<string, string>();
    const replaced = events.map((event) => ({ ...event, data: { ...(event.data as object) } as Record<string, unknown> }));
    for (const at of found) {
      const id = sealedIdOf(at.value);
      let reference: string;
      if (id && kept.has(heldKey(id, collectionOf(at), itemOf(at), at.field))) {
        reference = at.value as string;
      } else if (id) {
        throw new AppError('VALIDATION_FAILED', `"${at.field}" names a sealed value this record's field does not hold`, { path: ['body', at.field] });
      } else {
        const dedupe = `${at.event}\u001f${at.field}\u001f${JSON.stringify(at.value)}`;
        reference = sealedByValue.get(dedupe) ?? '';
        if (!reference) {
          const row = sealValue(context.keyRing, siteId, mode, { collection: collectionOf(at), itemId: itemOf(at), field: at.field }, at.value);
          rows.push(row);
          reference = sealedReference(row.id);
          sealedByValue.set(dedupe, reference);
        }
      }
      const data = replaced[at.event]!.data;
      data[at.key] = { ...(data[at.key] as Record<string, unknown>), [at.field]: reference };
    }
    insertSealed(tx, siteId, rows);
    return replaced as Event[];
  };
}

/** The references that are values this very record and field already hold (as heldKey). */
async function heldReferences(
  tx: Queryable,
  siteId: string,
  candidates: readonly { id: string | null; collection: string; itemId: string; field: string }[],
): Promise<Set<string>> {
  const named = candidates.filter((candidate): candidate is { id: string; collection: string; itemId: string; field: string } => candidate.id !== null);
  if (named.length === 0) return new Set();
  const rows = await tx.query<{ id: string; collection: string; item_id: string; field: string }>(sql`
    SELECT id, collection, item_id, field FROM sensitive_values WHERE site_id = ${siteId} AND id = ANY(${named.map((candidate) => candidate.id)}::uuid[])`);
  return new Set(rows.map((row) => heldKey(row.id, row.collection, row.item_id, row.field)));
}

/** A reference as held by one record's field: the same value id at another field is not held. */
function heldKey(id: string, collection: string, itemId: string, field: string): string {
  return `${id}\u001f${collection}\u001f${itemId}\u001f${field}`;
}
