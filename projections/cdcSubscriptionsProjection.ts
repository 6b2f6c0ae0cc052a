// Change-feed subscriptions as the routes and the webhook reactor read them. Inline: a create,
// pause or replay is visible to the next request.
import { SUBSCRIPTION_EVENT_TYPES, type SubscriptionEvent } from '../domain/changeFeed/subscription.ts';
import { sql } from '../infra/postgres/sql.ts';
import { defineProjection } from './projection.ts';

export const cdcSubscriptionsProjection = defineProjection({
  name: 'cdc-subscriptions',
  mode: 'inline',
  eventTypes: SUBSCRIPTION_EVENT_TYPES,
  tables: ['cdc_subscriptions'],
  async apply(tx, event) {
    const typed = { type: event.type, data: event.data } as SubscriptionEvent;
    const site = event.siteId;
    const at = event.recordedAt;
    const version = event.streamPosition;
    const id = typed.data.subscriptionId;
    switch (typed.type) {
      case 'cdc_subscription.created': {
        const d = typed.data;
        await tx.query(sql`
          INSERT INTO cdc_subscriptions (site_id, id, name, kind, state, url, secret_ciphertext, collections, operations, cursor_seq,
                                         version, created_at, updated_at)
          VALUES (${site}, ${id}, ${d.name}, ${d.kind}, 'active', ${d.url}, ${d.secretCiphertext}, ${d.collections}::text[],
                  ${d.operations}::text[], ${d.cursorSeq}, ${version}, ${at}, ${at})`);
        return;
      }
      case 'cdc_subscription.updated': {
        const c = typed.data.changes;
        await tx.query(sql`
          UPDATE cdc_subscriptions SET
                 name = CASE WHEN ${c.name !== undefined} THEN ${c.name ?? null} ELSE name END,
                 url = CASE WHEN ${c.url !== undefined} THEN ${c.url ?? null} ELSE url END,
                 secret_ciphertext = CASE WHEN ${c.secretCiphertext !== undefined} THEN ${c.secretCiphertext ?? null} ELSE secret_ciphertext END,
                 collections = CASE WHEN ${c.collections !== undefined} THEN ${c.collections ?? null}::text[] ELSE collections END,
                 operations = CASE WHEN ${c.operations !== undefined} THEN ${c.operations ?? null}::text[] ELSE operations END,
                 version = ${version}, updated_at = ${at}
           WHERE site_id = ${site} AND id = ${id}`);
        return;
      }
      case 'cdc_subscription.paused':
      case 'cdc_subscription.resumed':
      case 'cdc_subscription.died':
      case 'cdc_subscription.went_stale': {
        const state = { 'cdc_subscription.paused': 'paused', 'cdc_subscription.resumed': 'active', 'cdc_subscription.died': 'dead', 'cdc_subscription.went_stale': 'stale' }[typed.type];
        const reason = 'reason' in typed.data ? typed.data.reason : null;
        await tx.query(sql`
          UPDATE cdc_subscriptions SET state = ${state}, state_reason = ${reason}, version = ${version}, updated_at = ${at}
           WHERE site_id = ${site} AND id = ${id}`);
        return;
      }
      case 'cdc_subscription.acknowledged':
        await tx.query(sql`
          UPDATE cdc_subscriptions SET cursor_seq = ${typed.data.cursorSeq}, version = ${version}, updated_at = ${at}
           WHERE site_id = ${site} AND id = ${id}`);
        return;
      case 'cdc_subscription.replayed':
        await tx.query(sql`
          UPDATE cdc_subscriptions SET cursor_seq = ${typed.data.cursorSeq}, replay_generation = ${typed.data.generation},
                 state = ${typed.data.state}, state_reason = CASE WHEN ${typed.data.state} = state THEN state_reason END,
                 version = ${version}, updated_at = ${at}
           WHERE site_id = ${site} AND id = ${id}`);
        return;
      case 'cdc_subscription.dispatch_requested':
        await tx.query(sql`
          UPDATE cdc_subscriptions SET dispatch_requested_at = ${at}, version = ${version}, updated_at = ${at}
           WHERE site_id = ${site} AND id = ${id}`);
        return;
      case 'cdc_subscription.deleted':
        await tx.query(sql`DELETE FROM cdc_subscriptions WHERE site_id = ${site} AND id = ${id}`);
        return;
    }
  },
});
