// The commands of policies, settings, site, schema, config, editorial and items' versions and pins in
// the registry: each listed with the access and dangerous flag chosen for it, and `commands.run`
// answering as the REST route does (403 to a member, the same result and errors for the administrator).
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { createMember, withHelpers, type AccessSite } from '../modules/access/support.ts';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { callerOf, person, refusal, restError } from './support/commandCalls.ts';

const service = await startTestServiceForFile();
const commands = service.context.commands;

/** Each command of the slice: its access, capability and whether it is dangerous. */
const EXPECTED: Record<string, { access: string; capability?: string; dangerous: boolean }> = {
  'policies.create': { access: 'siteAdmin', dangerous: true },
  'policies.update': { access: 'siteAdmin', dangerous: true },
  'policies.delete': { access: 'siteAdmin', dangerous: true },
  'policies.addPermission': { access: 'siteAdmin', dangerous: true },
  'policies.removePermission': { access: 'siteAdmin', dangerous: true },
  'policies.removePermissions': { access: 'siteAdmin', dangerous: true },
  'policies.attach': { access: 'siteAdmin', dangerous: true },
  'policies.detach': { access: 'siteAdmin', dangerous: true },
  'settings.update': { access: 'siteAdmin', dangerous: true },
  'settings.set': { access: 'siteAdmin', dangerous: true },
  'settings.apply': { access: 'siteAdmin', dangerous: true },
  'site.update': { access: 'siteAdmin', dangerous: false },
  'schema.createCollection': { access: 'siteAdmin', dangerous: false },
  'schema.updateCollection': { access: 'siteAdmin', dangerous: true },
  'schema.deleteCollection': { access: 'siteAdmin', dangerous: true },
  'schema.applyCollection': { access: 'siteAdmin', dangerous: true },
  'schema.createField': { access: 'siteAdmin', dangerous: false },
  'schema.updateField': { access: 'siteAdmin', dangerous: true },
  'schema.deleteField': { access: 'siteAdmin', dangerous: true },
  'schema.createRelation': { access: 'siteAdmin', dangerous: false },
  'schema.updateRelation': { access: 'siteAdmin', dangerous: false },
  'schema.deleteRelation': { access: 'siteAdmin', dangerous: true },
  'config.import': { access: 'siteAdmin', dangerous: true },
  'editorial.submitReview': { access: 'bearer', dangerous: false },
  'editorial.approve': { access: 'bearer', capability: 'review:editorial', dangerous: true },
  'editorial.reject': { access: 'bearer', capability: 'review:editorial', dangerous: false },
  'items.createVersion': { access: 'bearer', dangerous: false },
  'items.updateVersion': { access: 'bearer', dangerous: false },
  'items.deleteVersion': { access: 'bearer', dangerous: true },
  'items.pin': { access: 'bearer', dangerous: false },
  'items.releasePins': { access: 'bearer', dangerous: true },
};

async function contentSite(): Promise<AccessSite & { admin_: Principal }> {
  const site = withHelpers(service, await createTestSite(service));
  await createCollection(service, site, 'articles', [{ field: 'title', type: 'string' }]);
  await createCollection(service, site, 'pages', [{ field: 'title', type: 'string' }]);
  return { ...site, admin_: person(site.adminUserId, true) };
}

describe('the registry, second slice', () => {
  it('lists each command of policies, settings, site, schema, config, editorial and item versions and pins, with its access and dangerous flag', () => {
    const listed = new Map(commands.list().map((command) => [command.name, command]));
    for (const [name, expected] of Object.entries(EXPECTED)) {
      expect(listed.get(name), name).toMatchObject({ access: expected.access, capability: expected.capability ?? null, dangerous: expected.dangerous });
      expect(listed.get(name)!.inputSchema, name).toMatchObject({ type: 'object' });
    }
  });

  it('deletes a collection through run as the route does: 403 to a member, the same 404 for an unknown one, gone for the administrator', async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    const forbidden = await refusal(commands.run('schema.deleteCollection', { name: 'articles' }, callerOf(site, person(member.userId))));
    expect(forbidden).toEqual(restError(await site.as(member.token, 'DELETE', '/collections/articles')));
    expect(forbidden).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });

    const unknown = await refusal(commands.run('schema.deleteCollection', { name: 'nothing' }, callerOf(site, site.admin_)));
    expect(unknown).toEqual(restError(await site.admin('DELETE', '/collections/nothing')));

    expect(await commands.run('schema.deleteCollection', { name: 'articles' }, callerOf(site, site.admin_))).toBeUndefined();
    expect((await site.admin('DELETE', '/collections/pages')).status).toBe(204);
    const afterRun = await site.admin('GET', '/collections/articles');
    const afterRest = await site.admin('GET', '/collections/pages');
    expect(afterRun.status).toBe(404);
    expect(restError(afterRun)).toEqual(restError(afterRest));
  });

  it('creates and deletes a policy through run with the answers and errors of its routes', async () => {
    const site = await contentSite();
    const member = await createMember(service, site);
    const created = await commands.run<{ id: string; name: string }>('policies.create', { name: 'Editors' }, callerOf(site, site.admin_));
    expect((await site.admin('GET', `/policies/${created.id}`)).body.data).toMatchObject({ id: created.id, name: 'Editors' });
    expect(await refusal(commands.run('policies.create', { name: 'Editors' }, callerOf(site, site.admin_)))).toEqual(
      restError(await site.admin('POST', '/policies', { name: 'Editors' })),
    );
    expect(await refusal(commands.run('policies.delete', { id: created.id }, callerOf(site, person(member.userId))))).toEqual(
      restError(await site.as(member.token, 'DELETE', `/policies/${created.id}`)),
    );
    await commands.run('policies.delete', { id: created.id }, callerOf(site, site.admin_));
    expect((await site.admin('GET', `/policies/${created.id}`)).status).toBe(404);
    expect(await refusal(commands.run('policies.delete', { id: 'nope' }, callerOf(site, site.admin_)))).toEqual(restError(await site.admin('DELETE', '/policies/nope')));
  });

  it('changes settings through run with the answer of PATCH /settings', async () => {
    const site = await contentSite();
    const viaRun = await commands.run('settings.update', { changes: { theme: 'dark' } }, callerOf(site, site.admin_));
    const overRest = await site.admin('PATCH', '/settings', { theme: 'dark' });
    expect(overRest.status).toBe(200);
    expect(viaRun).toEqual(overRest.body.data);
    expect(await refusal(commands.run('settings.update', { changes: {} }, callerOf(site, site.admin_)))).toEqual(restError(await site.admin('PATCH', '/settings', {})));
  });
});
