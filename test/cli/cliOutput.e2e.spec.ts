// What the `svc` commands print, spawned for real: standard output is exactly the command's answer
// (a manifest piped into the next command, JSON a script parses), logs and progress go to standard
// error (docs/cli.md).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../infra/postgres/sql.ts';
import { projections } from '../../projections/index.ts';
import { createFreshDatabase, type FreshDatabase } from '../projections/freshDatabase.ts';
import { createTestSite, startTestServiceForFile, uniqueSiteId } from '../support/testService.ts';
import { cliEnvironment, runCli } from './runCli.ts';

const service = await startTestServiceForFile();
const folder = mkdtempSync(join(tmpdir(), 'svc-cli-output-'));
const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('svc --version', () => {
  it('prints the version and nothing else', async () => {
    const [long, short] = await Promise.all([runCli(['--version']), runCli(['-V'])]);
    for (const result of [long, short]) expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('svc config export', () => {
  it('writes only the manifest to standard output, its log lines to standard error, and diff takes it back unchanged', { timeout: 120_000 }, async () => {
    const site = await createTestSite(service, 'cliout');
    const created = await service.request('POST', '/collections', {
      site: site.siteId,
      token: site.adminToken,
      body: { name: 'articles', fields: [{ field: 'title', type: 'string' }, { field: 'views', type: 'integer', indexed: true }] },
    });
    expect(created.status).toBe(201);
    // In production a context without SMTP_URL logs a warning: the line that used to land in the manifest.
    const environment = cliEnvironment({ NODE_ENV: 'production' });

    const exported = await runCli(['config', 'export', '--site', site.siteId], environment);
    expect(exported.code, exported.stderr).toBe(0);
    const manifest = JSON.parse(exported.stdout) as { version: string; collections: { name: string }[] };
    expect(manifest.version).toBe('svc.config@v1');
    expect(manifest.collections.map((collection) => collection.name)).toEqual(['articles']);
    expect(exported.stderr).toMatch(/"level":40,.*"msg":"SMTP_URL is not set/);

    const file = join(folder, `${site.siteId}.json`);
    writeFileSync(file, exported.stdout);
    const diff = await runCli(['config', 'diff', '--file', file, '--site', site.siteId, '--json'], environment);
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout).data).toMatchObject({ valid: true, errors: [], diff: { changes: [] } });
    const readable = await runCli(['config', 'diff', '--file', file, '--site', site.siteId], environment);
    expect(readable.code, readable.stderr).toBe(0);
    expect(readable.stdout).toMatch(/^risk: low\n[^{]*nothing to do\n$/);
  });

  it('still fails with one line on standard error and nothing on standard output for an unknown site', async () => {
    const result = await runCli(['config', 'export', '--site', uniqueSiteId('nowhere')], cliEnvironment({ NODE_ENV: 'production' }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/svc: Site nowhere-\w+ not found\n$/);
  });
});

describe('svc projections status --json', () => {
  it('prints {"projections":[{ name, mode, checkpoint, head, lag }]} for every projection', async () => {
    const result = await runCli(['projections', 'status', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { projections: statuses } = JSON.parse(result.stdout) as { projections: Record<string, unknown>[] };
    expect(statuses.map(({ name, mode }) => ({ name, mode }))).toEqual(projections.map(({ name, mode }) => ({ name, mode })));
    for (const status of statuses) {
      expect(Object.keys(status).sort()).toEqual(['checkpoint', 'head', 'lag', 'mode', 'name']);
      expect(status).toMatchObject({ head: expect.any(Number), lag: expect.any(Number) });
      expect(status.mode === 'inline' ? status.checkpoint : typeof status.checkpoint).toBe(status.mode === 'inline' ? null : 'number');
    }
  });
});

describe('svc projections rebuild, on a database of its own', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => {
    fresh = await createFreshDatabase();
  });
  afterAll(async () => fresh?.drop());

  it('reports progress on standard error with --progress, and none without it when standard error is not a terminal', { timeout: 90_000 }, async () => {
    const environment = cliEnvironment({ DATABASE_URL: fresh.url });
    const siteId = uniqueSiteId('cli');
    const created = await runCli(['site', 'create', siteId, '--admin-email', `a@${siteId}.test`, '--admin-password', 'long enough'], environment);
    expect(created.code, created.stderr).toBe(0);
    const [{ total }] = (await fresh.owner.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM events`)) as [{ total: number }];

    const shown = await runCli(['projections', 'rebuild', 'users', '--progress'], environment);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^users: replayed \d+ events in \d+ ms\n$/);
    expect(shown.stderr).toMatch(new RegExp(`^users: ${total} of ${total} events \\(100%\\), [\\d,]+ events/s, done\\n$`));

    const all = await runCli(['projections', 'rebuild', '--all', '--progress'], environment);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr.split('\n').filter(Boolean)).toEqual(projections.map((projection) => expect.stringMatching(new RegExp(`^${projection.name}: ${total} of ${total} events \\(100%\\)`))));

    const quiet = await runCli(['projections', 'rebuild', 'users'], environment);
    expect(quiet).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^users: replayed \d+ events in \d+ ms\n$/) });
  });
});
