// The commands of pages, trusted issuers, files, the change feed, web push, privacy, field
// encryption and the account area are in the registry with their access and dangerous flags, and
// `commands.run` answers as their routes do (issuers.delete: 403 to a member, the same outcome as
// DELETE /admin/auth/issuers/:id for the administrator, 422 for a bad body).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMember, withHelpers } from '../modules/access/support.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';
import { callerOf, person, refusal, restError } from './support/commandCalls.ts';

const service = await startTestServiceForFile();
const commands = service.context.commands;

const validIssuer = {
  issuer: 'https://idp.example.test/realms/slice3',
  jwksUri: 'https://idp.example.test/realms/slice3/certs',
  audience: 'svc-slice3',
  algorithms: ['RS256'],
};

describe('the registry, third slice', () => {
  it('lists the commands of these areas with their access, capability and dangerous flag', () => {
    const listed = new Map(commands.list().map((command) => [command.name, command]));
    const expected: [string, string, string | null, boolean][] = [
      ['pages.create', 'siteAdmin', null, false],
      ['pages.update', 'siteAdmin', null, false],
      ['pages.delete', 'siteAdmin', null, true],
      ['issuers.create', 'siteAdmin', null, true],
      ['issuers.update', 'siteAdmin', null, true],
      ['issuers.delete', 'siteAdmin', null, true],
      ['files.update', 'bearer', 'media:update', false],
      ['files.createPreset', 'bearer', 'media:create', false],
      ['files.updatePreset', 'bearer', 'media:update', false],
      ['files.deletePreset', 'bearer', 'media:delete', true],
      ['files.setUploadPolicy', 'siteAdmin', null, false],
      ['cdc.deleteSubscription', 'siteAdmin', null, true],
      ['push.unsubscribe', 'bearer', null, false],
      ['privacy.setConsent', 'person', null, false],
      ['privacy.setRestriction', 'person', null, false],
      ['privacy.runRetention', 'siteAdmin', null, true],
      ['encryption.rotateKey', 'siteAdmin', null, true],
      ['encryption.rewrap', 'siteAdmin', null, false],
      ['encryption.setEnvelope', 'personAdmin', null, true],
      ['encryption.migrateEnvelope', 'siteAdmin', null, false],
      ['account.changePassword', 'user', null, true],
      ['account.revokeSession', 'user', null, true],
      ['account.revokeAllSessions', 'user', null, true],
      ['account.updatePreferences', 'user', null, false],
    ];
    for (const [name, access, capability, dangerous] of expected) {
      expect(listed.get(name), name).toMatchObject({ access, capability, dangerous });
    }
    expect(listed.get('issuers.create')!.inputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['issuer', 'audience', 'algorithms']) });
  });

  it('deletes a trusted issuer through run as the route does: 403 to a member, gone for the administrator, 404 for an unknown one', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const admin = person(site.adminUserId, true);
    const member = await createMember(service, site);
    const issuer = (await site.admin('POST', '/admin/auth/issuers', validIssuer)).body.data.id as string;

    const forbidden = await refusal(commands.run('issuers.delete', { id: issuer }, callerOf(site, person(member.userId))));
    expect(forbidden).toEqual(restError(await site.as(member.token, 'DELETE', `/admin/auth/issuers/${issuer}`)));
    expect(forbidden.status).toBe(403);
    expect((await site.admin('GET', `/admin/auth/issuers/${issuer}`)).status).toBe(200);

    // The administrator: the issuer is gone, as after the route; a second delete is the route's 404.
    expect(await commands.run('issuers.delete', { id: issuer }, callerOf(site, admin))).toBeUndefined();
    expect((await site.admin('GET', `/admin/auth/issuers/${issuer}`)).status).toBe(404);
    const again = await refusal(commands.run('issuers.delete', { id: issuer }, callerOf(site, admin)));
    expect(again).toEqual(restError(await site.admin('DELETE', `/admin/auth/issuers/${issuer}`)));
    const unknown = randomUUID();
    expect(await refusal(commands.run('issuers.delete', { id: unknown }, callerOf(site, admin)))).toEqual(restError(await site.admin('DELETE', `/admin/auth/issuers/${unknown}`)));

    // The REST route gives the same outcome on another issuer.
    const other = (await site.admin('POST', '/admin/auth/issuers', { ...validIssuer, issuer: 'https://idp.example.test/realms/other' })).body.data.id as string;
    expect((await site.admin('DELETE', `/admin/auth/issuers/${other}`)).status).toBe(204);
    expect((await site.admin('GET', `/admin/auth/issuers/${other}`)).status).toBe(404);
  });

  it('answers an issuer body error with 422 at the field, as the route does', async () => {
    const site = withHelpers(service, await createTestSite(service));
    const body = { ...validIssuer, algorithms: ['HS256'] };
    const viaRun = await refusal(commands.run('issuers.create', body, callerOf(site, person(site.adminUserId, true))));
    expect(viaRun).toEqual(restError(await site.admin('POST', '/admin/auth/issuers', body)));
    expect(viaRun).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
  });
});
