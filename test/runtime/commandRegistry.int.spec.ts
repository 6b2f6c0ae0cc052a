// The command registry: `commands.run` answers as the REST route does (validation with its code and
// path, 401/403, the result, the actor in the event), another site's ids stay out of reach, two
// commands of one name are refused at boot, and `list()` shows each command's JSON schema and
// whether it is dangerous.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../infra/postgres/sql.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { createCommandRegistry } from '../../src/runtime/commandRegistry.ts';
import { createMember, grant, withHelpers, type AccessSite } from '../modules/access/support.ts';
import { createCollection } from '../support/contentModel.ts';
import { openOwnerDatabaseForFile } from '../support/databases.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { callerOf, person, refusal, restError } from './support/commandCalls.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();
const commands = service.context.commands;

async function contentSite(): Promise<AccessSite & { admin_: Principal }> {
  const site = withHelpers(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  return { ...site, admin_: person(site.adminUserId, true) };
}

async function actorsOf(streamId: string): Promise<unknown[]> {
  const rows = await owner.query<{ actor: unknown }>(sql`SELECT metadata->'actor' AS actor FROM events WHERE stream_id = ${streamId} ORDER BY stream_position`);
  return rows.map((row) => row.actor);
}

describe('commands.run', () => {
  it('creates an item as the route does: the same result, the same actor in the event, the same validation error', async () => {
    const site = await contentSite();
    const [result] = await commands.run<{ snapshot: { id: string; title: unknown }; version: number }[]>(
      'items.create',
      { collection: 'articles', items: { title: 'Through the registry' } },
      callerOf(site, site.admin_),
    );
    expect(result!.snapshot.title).toBe('Through the registry');
    expect(result!.version).toBe(1);
    const overRest = await site.admin('POST', '/items/articles', { title: 'Over REST' });
    expect(overRest.status).toBe(201);
    const expectedActor = { kind: 'user', id: site.adminUserId };
    expect(await actorsOf(`${site.siteId}/item/articles/${result!.snapshot.id}`)).toEqual([expectedActor]);
    expect(await actorsOf(`${site.siteId}/item/articles/${overRest.body.data.id}`)).toEqual([expectedActor]);

    // An empty array: the route's schema refuses it at `body`, and so does the command's.
    const viaRun = await refusal(commands.run('items.create', { collection: 'articles', items: [] }, callerOf(site, site.admin_)));
    expect(viaRun).toEqual(restError(await site.admin('POST', '/items/articles', [])));
    expect(viaRun).toEqual({ status: 400, code: 'VALIDATION_FAILED', path: ['body'] });
    // A field the collection refuses: the handler's error, at the same path.
    const badField = await refusal(commands.run('items.create', { collection: 'articles', items: { nope: 1 } }, callerOf(site, site.admin_)));
    expect(badField).toEqual(restError(await site.admin('POST', '/items/articles', { nope: 1 })));
  });

  it('answers 401 to no principal and 403 to one the command does not admit, as the routes do', async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    const anonymous: Principal = { kind: 'anonymous' };
    const missing = randomUUID();
    expect(await refusal(commands.run('users.delete', { id: missing }, callerOf(site, anonymous)))).toEqual(restError(await site.as(null, 'DELETE', `/users/${missing}`)));
    const forbidden = await refusal(commands.run('users.delete', { id: missing }, callerOf(site, person(member.userId))));
    expect(forbidden).toEqual(restError(await site.as(member.token, 'DELETE', `/users/${missing}`)));
    expect(forbidden.status).toBe(403);
    // The public role does not cover creates: the item handler's own 401, through run as over REST.
    expect(await refusal(commands.run('items.create', { collection: 'articles', items: { title: 'x' } }, callerOf(site, anonymous)))).toEqual(
      restError(await site.as(null, 'POST', '/items/articles', { title: 'x' })),
    );
  });

  it('deletes a user as a dangerous administrator command, with the administrator as the actor', async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    await commands.run('users.delete', { id: member.userId }, { ...callerOf(site, site.admin_), metadata: { actor: { kind: 'user', id: site.adminUserId }, requestId: 'req-registry-1' } });
    expect((await site.admin('GET', `/users/${member.userId}`)).status).toBe(404);
    const [row] = await owner.query<{ metadata: { actor: unknown; requestId: string } }>(
      sql`SELECT metadata FROM events WHERE site_id = ${site.siteId} AND type = 'user.deleted'`,
    );
    expect(row!.metadata).toMatchObject({ actor: { kind: 'user', id: site.adminUserId }, requestId: 'req-registry-1' });
    // A malformed id and an unknown one are 404, as over REST.
    expect(await refusal(commands.run('users.delete', { id: 'nope' }, callerOf(site, site.admin_)))).toEqual(restError(await site.admin('DELETE', '/users/nope')));
  });

  it('publishes a release for a holder of releases:publish, and refuses one without it (403) as the route does', async () => {
    const site = await contentSite();
    const article = (await site.admin('POST', '/items/articles', { title: 'A', status: 'draft' })).body.data.id as string;
    const release = await commands.run<{ id: string }>(
      'releases.create',
      { name: 'Launch', addItems: [{ collection: 'articles', itemId: article, targetStatus: 'published' }] },
      callerOf(site, site.admin_),
    );
    const member = await createMember(service, site);
    const memberPrincipal = person(member.userId);
    const refused = await refusal(commands.run('releases.publish', { id: release.id }, callerOf(site, memberPrincipal)));
    expect(refused).toEqual(restError(await site.as(member.token, 'POST', `/releases/${release.id}/publish`)));
    expect(refused).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    await grant(site, { userId: member.userId }, [
      { collection: null, action: 'releases:publish' },
      { collection: 'articles', action: 'read' },
      { collection: 'articles', action: 'update' },
    ]);
    // The grants cache drops the member's grants on the policy events (asynchronously).
    await expect.poll(async () => (await commands.run<{ status: string }>('releases.publish', { id: release.id }, callerOf(site, memberPrincipal)).catch(() => null))?.status).toBe('published');
    expect((await site.admin('GET', `/items/articles/${article}`)).body.data.status).toBe('published');
    expect(await actorsOf(`${site.siteId}/item/articles/${article}`)).toContainEqual({ kind: 'user', id: member.userId });
    // Release input errors are 422 at the field's path, as the route answers.
    const invalid = await refusal(commands.run('releases.create', { name: '' }, callerOf(site, site.admin_)));
    expect(invalid).toEqual(restError(await site.admin('POST', '/releases', { name: '' })));
    expect(invalid).toMatchObject({ status: 422, path: ['body', 'name'] });
  });

  it("answers 404 for another site's ids, as over REST", async () => {
    const site = await contentSite();
    const other = await contentSite();
    const item = (await other.admin('POST', '/items/articles', { title: 'Theirs' })).body.data.id as string;
    const release = (await other.admin('POST', '/releases', { name: 'Theirs' })).body.data.id as string;
    const member = await createMember(service, other);
    const cases: [string, Record<string, unknown>, string, string, unknown?][] = [
      ['items.update', { collection: 'articles', id: item, changes: { title: 'Mine' } }, 'PATCH', `/items/articles/${item}`, { title: 'Mine' }],
      ['items.delete', { collection: 'articles', id: item }, 'DELETE', `/items/articles/${item}`],
      ['releases.delete', { id: release }, 'DELETE', `/releases/${release}`],
      ['releases.publish', { id: release }, 'POST', `/releases/${release}/publish`, {}],
      ['users.delete', { id: member.userId }, 'DELETE', `/users/${member.userId}`],
    ];
    for (const [name, input, method, path, body] of cases) {
      const viaRun = await refusal(commands.run(name, input, callerOf(site, site.admin_)));
      expect(viaRun, name).toEqual(restError(await site.admin(method, path, body)));
      expect(viaRun.status, name).toBe(404);
    }
    expect((await other.admin('GET', `/items/articles/${item}`)).body.data.title).toBe('Theirs');
  });

  it('refuses an unknown command', async () => {
    const site = await contentSite();
    expect(await refusal(commands.run('items.launch', {}, callerOf(site, site.admin_)))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

describe('the registry', () => {
  it('throws at boot on two commands of one name', () => {
    const command = { name: 'notes.create', description: 'x', input: z.object({}), access: 'bearer' as const, dangerous: false, handler: async () => null };
    expect(() => createCommandRegistry([command, { ...command }], { context: () => null, accessFor: async () => ({ hasCapability: () => false }) })).toThrow(
      /notes\.create/,
    );
  });

  it("registers an area's runtime-bound commands under names no one else holds, and replaces them when the area registers again", async () => {
    const command = { name: 'notes.create', description: 'x', input: z.object({}), access: 'public' as const, dangerous: false, handler: async () => 'boot' };
    const registry = createCommandRegistry([command], { context: () => null, accessFor: async () => ({ hasCapability: () => false }) });
    const caller = { siteId: 'site', principal: { kind: 'anonymous' as const } };
    expect(() => registry.register('notes', [{ ...command, handler: async () => 'runtime' }])).toThrow(/notes\.create/);
    registry.register('notes', [{ ...command, name: 'notes.send', handler: async () => 'first runtime' }]);
    expect(() => registry.register('mail', [{ ...command, name: 'notes.send' }])).toThrow(/notes\.send/);
    registry.register('notes', [{ ...command, name: 'notes.send', handler: async () => 'second runtime' }]);
    expect(await registry.run('notes.send', {}, caller)).toBe('second runtime');
    expect(registry.list().map((listed) => listed.name)).toEqual(['notes.create', 'notes.send']);
  });

  it('lists every command with its JSON schema, access and dangerous flag', () => {
    const listed = new Map(commands.list().map((command) => [command.name, command]));
    expect(listed.get('items.create')).toMatchObject({ access: 'public', dangerous: false, inputSchema: { type: 'object', required: expect.arrayContaining(['collection', 'items']) } });
    expect(listed.get('items.delete')).toMatchObject({ dangerous: true });
    expect(listed.get('releases.publish')).toMatchObject({ access: 'bearer', capability: 'releases:publish', dangerous: true });
    expect(listed.get('users.delete')).toMatchObject({ access: 'siteAdmin', dangerous: true });
    expect(listed.get('users.create')).toMatchObject({ dangerous: false, inputSchema: { properties: { email: { type: 'string' } } } });
    // Bound to their areas' runtimes, registered when the server started them.
    expect(listed.get('files.register')).toMatchObject({ access: 'bearer', capability: 'media:create', dangerous: false });
    expect(listed.get('cdc.createSubscription')).toMatchObject({ access: 'siteAdmin', dangerous: true });
    expect(listed.get('users.impersonate')).toMatchObject({ access: 'personAdmin', dangerous: true });
    expect(listed.get('push.subscribe')).toMatchObject({ access: 'bearer', dangerous: false });
    for (const command of listed.values()) expect(command.name).toMatch(/^[a-z][a-zA-Z]*\.[a-z][a-zA-Z]*$/);
  });
});
