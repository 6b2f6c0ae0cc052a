// `svc config export|diff|apply`, spawned for real against the test database: the readable plan, the
// same dry-run and apply semantics as POST /config/import, and exit codes a CI job can act on.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectOwnerClientForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { runCli } from '../../cli/runCli.ts';
import { blogSchema, configSite, eventCount, manifest, withoutTime } from './support.ts';

const service = await startTestServiceForFile();
const owner = await connectOwnerClientForFile();
const folder = mkdtempSync(join(tmpdir(), 'svc-config-cli-'));

function manifestFile(name: string, body: unknown): string {
  const file = join(folder, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

describe('svc config', () => {
  it('diffs, applies and exports a manifest; a second diff has nothing to do', { timeout: 120_000 }, async () => {
    const { site, exportConfig } = await configSite(service);
    const file = manifestFile('blog.json', manifest(blogSchema));

    const diff = await runCli(['config', 'diff', '--file', file, '--site', site.siteId]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('risk: low');
    expect(diff.stdout).toMatch(/collections +2 create, 0 update, 0 unchanged, 0 delete/);
    expect(diff.stdout).toContain('+ collection articles');
    expect(diff.stdout).toContain('+ relation articles.author');
    expect((await exportConfig()).collections).toEqual([]);

    const applied = await runCli(['config', 'apply', '--file', file, '--site', site.siteId]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('applied: 7 created, 0 updated, 0 deleted');
    const { rows } = await owner.query(`SELECT DISTINCT metadata->'actor' AS actor FROM events WHERE site_id = $1 AND stream_id LIKE $2`, [
      site.siteId,
      `${site.siteId}/collection/%`,
    ]);
    expect(rows).toEqual([{ actor: { kind: 'system', id: 'cli' } }]);

    const again = await runCli(['config', 'diff', '--file', file, '--site', site.siteId, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).data).toMatchObject({ valid: true, errors: [], diff: { changes: [] } });

    const out = join(folder, 'exported.json');
    const exported = await runCli(['config', 'export', '--site', site.siteId, '--file', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(withoutTime(JSON.parse(readFileSync(out, 'utf8')))).toEqual(withoutTime(await exportConfig()));
  });

  it('exits 1 on an invalid manifest, listing every error by its place in the file, and writes nothing', { timeout: 120_000 }, async () => {
    const { site } = await configSite(service);
    const file = manifestFile('broken.json', manifest({ collections: [{ name: 'a' }, { name: 'a' }], fields: [{ collection: 'nowhere', field: 'x', type: 'string' }] }));
    const before = await eventCount(owner, site.siteId);
    const diff = await runCli(['config', 'diff', '--file', file, '--site', site.siteId]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('2 errors:');
    expect(diff.stdout).toContain('DUPLICATE_KEY at collections[1].name');
    expect(diff.stdout).toContain('DANGLING_REFERENCE at fields[0].collection');
    const applied = await runCli(['config', 'apply', '--file', file, '--site', site.siteId]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('svc: DUPLICATE_KEY at collections[1].name');
    expect(await eventCount(owner, site.siteId)).toBe(before);

    const notJson = join(folder, 'not.json');
    writeFileSync(notJson, '{ nope');
    expect(await runCli(['config', 'diff', '--file', notJson, '--site', site.siteId])).toMatchObject({ code: 1, stderr: expect.stringContaining('is not JSON') });
    const unknownSite = await runCli(['config', 'diff', '--file', file, '--site', 'no-such-site']);
    expect(unknownSite).toMatchObject({ code: 1, stderr: 'svc: Site no-such-site not found\n' });
    const badMode = await runCli(['config', 'diff', '--file', file, '--site', site.siteId, '--mode', 'overwrite']);
    expect(badMode.code).not.toBe(0);
    expect(badMode.stderr).toContain('merge, replace-managed, replace-all');
  });

  it('exits 2 on destructive changes unless --allow-destructive', { timeout: 120_000 }, async () => {
    const { site, call, apply } = await configSite(service);
    await apply(manifest(blogSchema));
    await call('POST', '/items/articles', { title: 'Kept', views: 1 });
    const file = manifestFile('smaller.json', manifest({ ...blogSchema, fields: blogSchema.fields.filter((field) => field.field !== 'views') }));
    const diff = await runCli(['config', 'diff', '--file', file, '--site', site.siteId, '--mode', 'replace-all']);
    expect(diff.code).toBe(2);
    expect(diff.stdout).toContain('risk: high');
    expect(diff.stdout).toContain('- field articles.views');
    expect(diff.stdout).toContain('DESTRUCTIVE: items hold values in the field');
    const refused = await runCli(['config', 'apply', '--file', file, '--site', site.siteId, '--mode', 'replace-all']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('need --allow-destructive');
    const allowed = await runCli(['config', 'apply', '--file', file, '--site', site.siteId, '--mode', 'replace-all', '--allow-destructive']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('applied: 0 created, 0 updated, 1 deleted');
  });

  it('describes its commands', { timeout: 60_000 }, async () => {
    const help = await runCli(['config', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/export/);
    expect(help.stdout).toMatch(/diff/);
    expect(help.stdout).toMatch(/apply/);
    const apply = await runCli(['config', 'apply', '--help']);
    expect(apply.stdout).toMatch(/--file <path>/);
    expect(apply.stdout).toMatch(/--site <id>/);
    expect(apply.stdout).toMatch(/--allow-destructive/);
  });
});
