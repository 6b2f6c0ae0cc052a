// Change-feed entries hold item snapshots as the log does: pii/phi fields as references to the
// sensitive value store. Before entries leave (a feed page, a webhook delivery) their snapshots are
// opened for a reader with `read_decrypted`, masked for any other (src/modules/encryption/reveal.ts).
import { SEALED_PREFIX } from '../../../domain/privacy/sealedReference.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { createRevealer, type RevealApp } from '../encryption/reveal.ts';
import type { FeedEnvelope } from './feedEnvelope.ts';
import type { FeedView } from './feedVisibility.ts';

/** The envelopes (JSON text) as `view`'s reader reads them: unchanged unless they hold a sealed value. */
export async function revealEnvelopes(
  app: RevealApp,
  reader: Queryable,
  schema: SiteSchema,
  view: FeedView,
  metadata: EventMetadata,
  envelopes: readonly string[],
): Promise<string[]> {
  if (!envelopes.some((envelope) => envelope.includes(SEALED_PREFIX))) return [...envelopes];
  const revealer = createRevealer(app, schema.siteId, view.mayDecrypt, metadata);
  const shown: string[] = [];
  for (const text of envelopes) {
    if (!text.includes(SEALED_PREFIX)) {
      shown.push(text);
      continue;
    }
    const envelope = JSON.parse(text) as FeedEnvelope;
    const collection = envelope.collection === null ? undefined : schema.collections.get(envelope.collection);
    if (!collection || envelope.itemId === null || !envelope.snapshot) {
      shown.push(text);
      continue;
    }
    const [snapshot] = await revealer.reveal(reader, collection, [{ itemId: envelope.itemId, content: envelope.snapshot }]);
    shown.push(JSON.stringify({ ...envelope, snapshot }));
  }
  return shown;
}
