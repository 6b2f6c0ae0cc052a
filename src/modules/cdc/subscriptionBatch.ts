// The next batch of a delivering subscription (webhook or sink) as its creator sees it: the entries
// after its delivered cursor that its filters want, up to the head as it stood when the creator's
// access was read (subscriptionReader.ts), each presented as GET /cdc/events would show it to the
// creator, pii/phi values opened or masked for the creator. The reactors keep their own state: this
// reads only.
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { SiteFeedCursors } from './feedCursors.ts';
import { readFeedHead, selectFeedRows } from './feedQueries.ts';
import { revealEnvelopes } from './feedReveal.ts';
import type { PresentedEntry } from './feedVisibility.ts';
import type { SubscriptionRow } from './subscriptionQueries.ts';
import type { SubscriptionReader } from './subscriptionReader.ts';

/** An entry to deliver, as the subscription's creator sees it. */
export interface BatchEntry extends PresentedEntry {
  type: string;
  event_id: string;
  collection: string | null;
}

export type SubscriptionBatch =
  /** The next entry to deliver was removed by retention. */
  | { kind: 'stale' }
  /** The creator cannot sign in now: nothing is sent, nothing is skipped. `pending`: entries are waiting. */
  | { kind: 'creatorAway'; pending: boolean; reason: string }
  /**
   * The entries to deliver (none when the creator may read none of the batch), and the sequence the
   * cursor may move to when there are none; `caughtUp`: nothing more up to the feed's head; `full`:
   * the batch was cut at `limit`, so more entries may follow it (a sink reads the next one ahead).
   */
  | { kind: 'entries'; entries: BatchEntry[]; skipTo: number; caughtUp: boolean; full: boolean; actor: EventMetadata['actor'] };

export async function readSubscriptionBatch(
  context: AppContext,
  tx: Queryable,
  request: { subscription: SubscriptionRow; afterSeq: number; reader: SubscriptionReader; cursors: SiteFeedCursors; limit: number },
): Promise<SubscriptionBatch> {
  const { subscription, afterSeq, reader } = request;
  const siteId = subscription.site_id;
  const head = await readFeedHead(tx, siteId);
  if (head.prunedThrough > afterSeq) return { kind: 'stale' };
  if (!reader.signedIn) return { kind: 'creatorAway', pending: head.lastSeq > afterSeq, reason: reader.reason };
  const filter = { collections: subscription.collections, operations: subscription.operations };
  // Up to the head as it stood when the creator's access was read (subscriptionReader.ts).
  const through = Math.min(head.lastSeq, reader.headSeq);
  const rows = await selectFeedRows(tx, siteId, { afterSeq, throughSeq: through, limit: request.limit, filter, view: reader.view, cursors: request.cursors });
  // Nothing this subscription wants up to there, or nothing in this batch its creator may read:
  // the cursor may move past what was left out.
  const skipTo = rows.length === 0 ? through : rows.at(-1)!.seq;
  const presented: BatchEntry[] = [];
  for (const row of rows) {
    const shown = reader.view.present(row);
    if (shown) presented.push({ ...shown, type: row.type, event_id: row.event_id, collection: row.collection });
  }
  const schema = await context.schemas.site(siteId);
  const metadata = { actor: reader.actor, correlationId: subscription.id };
  const envelopes = await revealEnvelopes(context, tx, schema, reader.view, metadata, presented.map((entry) => entry.envelope));
  const entries = presented.map((entry, index) => ({ ...entry, envelope: envelopes[index]! }));
  return { kind: 'entries', entries, skipTo, caughtUp: rows.length === 0 && through === head.lastSeq, full: rows.length >= request.limit, actor: reader.actor };
}
