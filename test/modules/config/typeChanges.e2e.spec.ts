// POST /config/import changing a field's type: the dry run lists it as destructive with what the
// conversion does, the apply is 409 DESTRUCTIVE_BLOCKED without allowDestructive and converts the
// items' values with it, and the changes no conversion can make are errors whatever the flag.
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';
import { configSite, eventCount, manifest } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();

const notes = (codeType: string, extra: Record<string, unknown> = {}) =>
  manifest({
    collections: [{ name: 'notes', label: 'Notes' }],
    fields: [
      { collection: 'notes', field: 'title', type: 'string' },
      { collection: 'notes', field: 'code', type: codeType, ...extra },
      { collection: 'notes', field: 'secret', type: 'hash' },
    ],
  });

/** A site whose notes hold codes "12", "7", "abc" and "1.5" (string). */
async function siteWithCodes() {
  const config = await configSite(service);
  await config.apply(notes('string'));
  for (const code of ['12', '7', 'abc', '1.5']) {
    const created = await config.call('POST', '/items/notes', { title: `n${code}`, code, secret: 'pw' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const codes = async () => (await config.call('GET', '/items/notes?sort=title')).body.data.map((item: { code: unknown }) => item.code);
  return { ...config, codes };
}

describe('a field type change in a config import', () => {
  it('is listed as destructive by the dry run, with the values it converts and nulls', async () => {
    const { site, dryRun, codes } = await siteWithCodes();
    const before = await eventCount(owner, site.siteId);
    const plan = await dryRun(notes('integer'));
    expect(plan.valid).toBe(true);
    expect(plan.diff.risk).toBe('high');
    const change = plan.diff.changes.find((entry: { key: string }) => entry.key === 'notes.code');
    expect(change).toMatchObject({
      resource: 'fields',
      action: 'update',
      changes: { type: { from: 'string', to: 'integer' } },
      conversion: { converted: 2, nulled: 2 },
      destructive: 'the type changes from string to integer: 2 values convert, 2 become null (the log keeps the old ones)',
    });
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect(await codes()).toEqual(['1.5', '12', '7', 'abc']);
  });

  it('is 409 DESTRUCTIVE_BLOCKED without allowDestructive, and converts the values with it', async () => {
    const { site, importManifest, apply, codes, call } = await siteWithCodes();
    const before = await eventCount(owner, site.siteId);
    const refused = await importManifest(notes('integer'));
    expect([refused.status, refused.body.errors[0].code]).toEqual([409, 'DESTRUCTIVE_BLOCKED']);
    expect(refused.body.errors[0].extensions.blocked).toEqual([expect.objectContaining({ key: 'notes.code', conversion: { converted: 2, nulled: 2 } })]);
    expect(await eventCount(owner, site.siteId)).toBe(before);
    expect(await codes()).toEqual(['1.5', '12', '7', 'abc']);

    const applied = await apply(notes('integer'), 'mode=merge&allowDestructive=true');
    expect(applied.applied).toEqual({ created: 0, updated: 1, deleted: 0, converted: 2, nulled: 2 });
    expect(await codes()).toEqual([null, 12, 7, null]);
    expect((await call('GET', '/fields/notes/code')).body.data.type).toBe('integer');
    expect((await call('GET', '/items/notes?filter[code][_lt]=10')).body.data.map((item: { code: number }) => item.code)).toEqual([7]);
  });

  it('reports what no conversion can do as an error, whatever the flag, and writes nothing', async () => {
    const { site, importManifest, dryRun } = await siteWithCodes();
    const hashToText = manifest({
      collections: [{ name: 'notes', label: 'Notes' }],
      fields: [
        { collection: 'notes', field: 'title', type: 'string' },
        { collection: 'notes', field: 'code', type: 'string' },
        { collection: 'notes', field: 'secret', type: 'string' },
      ],
    });
    const plan = await dryRun(hashToText);
    expect(plan.valid).toBe(false);
    expect(plan.errors).toEqual([expect.objectContaining({ code: 'CONFLICT', path: ['body', 'fields', 2, 'type'] })]);
    const before = await eventCount(owner, site.siteId);
    const refused = await importManifest(hashToText, 'mode=merge&allowDestructive=true');
    expect([refused.status, refused.body.errors[0].code, refused.body.errors[0].path]).toEqual([409, 'CONFLICT', ['body', 'fields', 2, 'type']]);
    expect(await eventCount(owner, site.siteId)).toBe(before);
  });

  it('is for site administrators only, and counts only the importing site', async () => {
    const { site, codes } = await siteWithCodes();
    const member = await createMember(service, site);
    const forbidden = await service.request('POST', '/config/import?mode=merge&allowDestructive=true', { site: site.siteId, token: member.token, body: notes('integer') });
    expect([forbidden.status, forbidden.body.errors[0].code]).toEqual([403, 'PERMISSION_DENIED']);
    expect(await codes()).toEqual(['1.5', '12', '7', 'abc']);
    // Another site with the same collection and field, but no values: its import converts nothing of this site.
    const other = await configSite(service);
    await other.apply(notes('string'));
    const applied = await other.apply(notes('integer'), 'mode=merge&allowDestructive=true');
    expect(applied.applied).toEqual({ created: 0, updated: 1, deleted: 0 });
    expect(await codes()).toEqual(['1.5', '12', '7', 'abc']);
  });
});
