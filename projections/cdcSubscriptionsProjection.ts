// Change-feed subscriptions as the routes and the webhook reactor read them. Inline: a create,
// pause or replay is visible to the next request.
import type { StoredEvent } from '../domain/shared/events.ts';
import type { Queryable } from '../infra/postgres/database.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection, sameHandler } from './projection.ts';

type StateChange = 'cdc_subscription.paused' | 'cdc_subscription.resumed' | 'cdc_subscription.died' | 'cdc_subscription.went_stale';

const STATE_AFTER: Record<StateChange, string> = {
  'cdc_subscription.paused': 'paused',
  'cdc_subscription.resumed': 'active',
  'cdc_subscription.died': 'dead',
  'cdc_subscription.went_stale': 'stale',
};

/** The subscription's row: its state moved, with the reason when the service moved it. */
async function changeState(tx: Queryable, event: StoredEvent<StateChange>): Promise<void> {
  const reason = 'reason' in event.data ? event.data.reason : null;
  await tx.query(sql`
    UPDATE cdc_subscriptions SET state = ${STATE_AFTER[event.type]}, state_reason = ${reason}, version = ${event.streamPosition}, updated_at = ${event.recordedAt}
     WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
}

export const cdcSubscriptionsProjection = defineProjection({
  name: 'cdc-subscriptions',
  mode: 'inline',
  tables: ['cdc_subscriptions'],
  handlers: {
    'cdc_subscription.created': async (tx, event) => {
      const d = event.data;
      const at = event.recordedAt;
      // The creator: a webhook or a sink delivers what this principal may read (src/modules/cdc/subscriptionReader.ts).
      const creator = event.metadata.actor;
      await tx.query(sql`
        INSERT INTO cdc_subscriptions (site_id, id, name, kind, state, url, secret_ciphertext, collections, operations, nats_channel, cursor_seq,
                                       version, created_at, updated_at, creator_kind, creator_id)
        VALUES (${event.siteId}, ${d.subscriptionId}, ${d.name}, ${d.kind}, 'active', ${d.url}, ${d.secretCiphertext}, ${d.collections}::text[],
                ${d.operations}::text[], ${d.natsChannel ?? null}, ${d.cursorSeq}, ${event.streamPosition}, ${at}, ${at}, ${creator?.kind ?? null},
                ${creator?.id ?? null})`);
    },
    'cdc_subscription.updated': async (tx, event) => {
      const c = event.data.changes;
      await tx.query(sql`
        UPDATE cdc_subscriptions SET
               name = CASE WHEN ${c.name !== undefined} THEN ${c.name ?? null} ELSE name END,
               url = CASE WHEN ${c.url !== undefined} THEN ${c.url ?? null} ELSE url END,
               secret_ciphertext = CASE WHEN ${c.secretCiphertext !== undefined} THEN ${c.secretCiphertext ?? null} ELSE secret_ciphertext END,
               collections = CASE WHEN ${c.collections !== undefined} THEN ${c.collections ?? null}::text[] ELSE collections END,
               operations = CASE WHEN ${c.operations !== undefined} THEN ${c.operations ?? null}::text[] ELSE operations END,
               nats_channel = CASE WHEN ${c.natsChannel !== undefined} THEN ${c.natsChannel ?? null} ELSE nats_channel END,
               version = ${event.streamPosition}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
    },
    ...sameHandler(['cdc_subscription.paused', 'cdc_subscription.resumed', 'cdc_subscription.died', 'cdc_subscription.went_stale'], changeState),
    'cdc_subscription.acknowledged': async (tx, event) => {
      await tx.query(sql`
        UPDATE cdc_subscriptions SET cursor_seq = ${event.data.cursorSeq}, version = ${event.streamPosition}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
    },
    'cdc_subscription.replayed': async (tx, event) => {
      const d = event.data;
      await tx.query(sql`
        UPDATE cdc_subscriptions SET cursor_seq = ${d.cursorSeq}, replay_generation = ${d.generation},
               state = ${d.state}, state_reason = CASE WHEN ${d.state} = state THEN state_reason END,
               version = ${event.streamPosition}, updated_at = ${event.recordedAt}
         WHERE site_id = ${event.siteId} AND id = ${d.subscriptionId}`);
    },
    'cdc_subscription.dispatch_requested': async (tx, event) => {
      const at = event.recordedAt;
      await tx.query(sql`
        UPDATE cdc_subscriptions SET dispatch_requested_at = ${at}, version = ${event.streamPosition}, updated_at = ${at}
         WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
    },
    'cdc_subscription.deleted': async (tx, event) => {
      await tx.query(sql`DELETE FROM cdc_subscriptions WHERE site_id = ${event.siteId} AND id = ${event.data.subscriptionId}`);
    },
  },
});
