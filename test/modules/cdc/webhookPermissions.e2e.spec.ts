// A webhook subscription delivers what its creator may read, as the creator's access stands when
// each batch is sent: against a real local receiver, on a database of its own (other test files'
// delivery workers must not pick these jobs up with their own settings).
import { afterAll, describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile } from '../../support/testService.ts';
import { createContentModel, createItem, createMember, createRole, grant, withHelpers, type AccessSite, type Member } from '../access/support.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { appendItemEvent, until } from './support.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhookReceiver.ts';

const SECRET = 'whsec-permissions-0123456789';
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url, SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_SWEEP_MS: '500' });

interface Owned {
  site: AccessSite;
  owner: Member;
  roleId: string;
  hooks: WebhookReceiver;
  subscriptionId: string;
}

/**
 * A site whose webhook was created by a member holding an administrator role, paused, and the role
 * then made an ordinary one: the subscription keeps its creator, whose access is now the role's.
 */
async function ownedWebhook(): Promise<Owned> {
  const site = withHelpers(service, await createTestSite(service, 'hookacl'));
  await createContentModel(site);
  expect((await site.admin('POST', '/fields/authors', { field: 'phone', type: 'string', sensitivity: 'pii' })).status).toBe(201);
  const role = await createRole(site, { admin: true });
  const owner = await createMember(service, site, { roleId: role.id });
  const hooks = await startWebhookReceiver(SECRET);
  receivers.push(hooks);
  const created = await site.as(owner.token, 'POST', '/cdc/subscriptions', { name: 'owned', kind: 'webhook', webhook: { url: hooks.url, secret: SECRET } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.data.createdBy).toEqual({ kind: 'user', id: owner.userId });
  expect((await site.admin('PATCH', `/roles/${role.id}`, { admin: false })).status).toBe(200);
  return { site, owner, roleId: role.id as string, hooks, subscriptionId: created.body.data.id as string };
}

function detail(owned: Owned) {
  return owned.site.admin('GET', `/cdc/subscriptions/${owned.subscriptionId}`).then((response) => response.body.data);
}

describe('webhook deliveries follow the creator’s access', () => {
  it('sends only the collections, rows and fields the creator may read, and logs the pii it sends as the creator’s reads', async () => {
    const owned = await ownedWebhook();
    const { site, hooks } = owned;
    await grant(site, { roleId: owned.roleId }, [
      { collection: 'articles', action: 'read', fields: ['title', 'category'], conditions: { category: { _eq: 'public' } } },
      { collection: 'authors', action: 'read', fields: ['name', 'phone'] },
      // pii values leave decrypted only for a creator who holds read_decrypted on them (docs/privacy.md).
      { collection: 'authors', action: 'read_decrypted', fields: ['phone'] },
    ]);
    const ada = await createItem(site, 'authors', { name: 'Ada', email: 'hidden-email@example.test', phone: '+1 555 0100' });
    const shown = await createItem(site, 'articles', { title: 'Shown', body: 'hidden body', category: 'public' });
    const internal = await createItem(site, 'articles', { title: 'Internal', body: 'hidden body', category: 'internal' });
    await site.admin('DELETE', `/items/articles/${internal.id}`);
    const other = withHelpers(service, await createTestSite(service, 'hookacl-other'));
    await appendItemEvent(service, other.siteId, { type: 'item.created', collection: 'articles', fields: { title: 'Foreign', category: 'public' } });
    await createItem(site, 'authors', { name: 'Marker' });

    await hooks.waitFor((receiver) => receiver.accepted().some((delivery) => delivery.body.snapshot?.name === 'Marker'));
    const items = hooks.accepted().filter((delivery) => delivery.body.type.startsWith('items.'));
    expect(items.map((delivery) => [delivery.body.type, delivery.body.itemId])).toEqual([
      ['items.create', ada.id],
      ['items.create', shown.id],
      ['items.create', expect.any(String)],
    ]);
    expect(items[0]!.body.snapshot).toEqual({ id: ada.id, name: 'Ada', phone: '+1 555 0100', deletedAt: null });
    expect(items[1]!.body.snapshot).toEqual({ id: shown.id, title: 'Shown', category: 'public', deletedAt: null });
    const text = JSON.stringify(hooks.requests.map((delivery) => delivery.body));
    for (const hidden of ['hidden-email', 'hidden body', 'Internal', 'Foreign']) expect(text).not.toContain(hidden);
    expect(hooks.requests.every((delivery) => delivery.signatureValid && delivery.body.type !== undefined)).toBe(true);

    const logged = await service.context.database.withSite(site.siteId, (tx) =>
      tx.query<{ data: { reads: unknown[] }; metadata: { actor: { kind: string; id: string }; correlationId: string } }>({
        text: `SELECT data, metadata FROM events WHERE site_id = $1 AND type = 'item.sensitive_read' ORDER BY position`,
        values: [site.siteId],
      }),
    );
    expect(logged.flatMap((row) => row.data.reads)).toEqual([{ collection: 'authors', itemId: ada.id, fields: [{ field: 'phone', sensitivity: 'pii' }] }]);
    expect(logged[0]!.metadata).toMatchObject({ actor: { kind: 'user', id: owned.owner.userId }, correlationId: owned.subscriptionId });
    // Skipped entries still move the cursor: nothing is left to deliver.
    expect((await until(() => detail(owned), (view) => view.lag.events === 0)).lag.events).toBe(0);
  });

  it('applies a change of the creator’s access to the next delivery', async () => {
    const owned = await ownedWebhook();
    const { site, hooks } = owned;
    const named = (name: string) => (receiver: WebhookReceiver) => receiver.accepted().some((delivery) => delivery.body.snapshot?.title === name || delivery.body.snapshot?.name === name);
    // Nothing of the items yet: this one is skipped for good.
    await createItem(site, 'articles', { title: 'Before' });
    await grant(site, { roleId: owned.roleId }, [{ collection: 'authors', action: 'read', fields: ['name'] }]);
    await createItem(site, 'authors', { name: 'First' });
    await hooks.waitFor(named('First'));
    await grant(site, { roleId: owned.roleId }, [{ collection: 'articles', action: 'read', fields: ['title'] }]);
    await createItem(site, 'articles', { title: 'Later' });
    await hooks.waitFor(named('Later'));
    const items = hooks.accepted().filter((delivery) => delivery.body.type.startsWith('items.'));
    expect(items.map((delivery) => delivery.body.snapshot?.title ?? delivery.body.snapshot?.name)).toEqual(['First', 'Later']);
  });

  it('holds deliveries while its creator cannot sign in, and sends them once it can again', async () => {
    const owned = await ownedWebhook();
    const { site, hooks } = owned;
    await grant(site, { roleId: owned.roleId }, [{ collection: 'authors', action: 'read' }]);
    expect((await site.admin('PATCH', `/users/${owned.owner.userId}`, { status: 'suspended' })).status).toBe(200);
    await createItem(site, 'authors', { name: 'Waiting' });
    const held = await until(() => detail(owned), (view) => view.delivery.lastError !== null);
    expect(held).toMatchObject({ state: 'active', delivery: { lastError: expect.stringContaining('not active') } });
    expect(held.lag.events).toBeGreaterThan(0);
    // What was written while the creator could sign in (the model's fields, which the async feed may
    // still have been projecting when the subscription took "the end") may have gone out; the item
    // written after the suspension has not.
    expect(hooks.requests.filter((delivery) => delivery.body.snapshot?.name === 'Waiting')).toEqual([]);

    expect((await site.admin('PATCH', `/users/${owned.owner.userId}`, { status: 'active' })).status).toBe(200);
    expect((await site.admin('POST', `/cdc/subscriptions/${owned.subscriptionId}/dispatch`)).status).toBe(202);
    await hooks.waitFor((receiver) => receiver.accepted().some((delivery) => delivery.body.snapshot?.name === 'Waiting'));
  });
});
