// The `svc` command line, spawned for real against the test database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../infra/postgres/sql.ts';
import { projections } from '../../projections/index.ts';
import { openOwnerDatabaseForFile } from '../support/databases.ts';
import { startTestServiceForFile, uniqueSiteId } from '../support/testService.ts';
import { createFreshDatabase, type FreshDatabase } from '../projections/freshDatabase.ts';
import { cliEnvironment, runCli } from './runCli.ts';

const service = await startTestServiceForFile();
const owner = openOwnerDatabaseForFile();

function signIn(siteId: string, email: string, password: string) {
  return service.request('POST', '/auth/login', { site: siteId, body: { email, password } });
}

describe('svc --help', () => {
  it('describes every command and its options', { timeout: 60_000 }, async () => {
    const cases: [string[], RegExp[]][] = [
      [['--help'], [/start/, /migrate/, /site/, /projections/, /events/]],
      [['start', '--help'], [/Usage: svc start/, /embedded PostgreSQL/]],
      [['migrate', '--help'], [/Usage: svc migrate/]],
      [['site', 'create', '--help'], [/Usage: svc site create .*<id>/, /--admin-email <email>/, /--admin-password <password>/, /--name <name>/]],
      [['projections', 'status', '--help'], [/Usage: svc projections status/]],
      [['projections', 'rebuild', '--help'], [/Usage: svc projections rebuild .*\[name\]/, /--all/]],
      [['events', 'tail', '--help'], [/Usage: svc events tail/, /--site <site>/, /--from-start/]],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args)));
    results.forEach((result, index) => {
      const [args, patterns] = cases[index]!;
      expect(result.code, args.join(' ')).toBe(0);
      for (const pattern of patterns) expect(result.stdout, args.join(' ')).toMatch(pattern);
    });
  });
});

describe('svc migrate', () => {
  it('reports an up-to-date database', async () => {
    const result = await runCli(['migrate']);
    expect(result).toMatchObject({ code: 0, stdout: 'database is up to date\n' });
  });
});

describe('svc openapi', () => {
  it('prints the document the service serves, and nothing else on standard output', { timeout: 60_000 }, async () => {
    const result = await runCli(['openapi']);
    expect(result.code, result.stderr).toBe(0);
    const served = await service.request('GET', '/openapi.json');
    expect(JSON.parse(result.stdout)).toEqual(served.body);
  });
});

describe('svc site create', () => {
  it('creates a site whose administrator can sign in, and refuses the same id again', { timeout: 60_000 }, async () => {
    const siteId = uniqueSiteId('cli');
    const email = `first@${siteId}.test`;
    const created = await runCli(['site', 'create', siteId, '--admin-email', email, '--admin-password', 'from the command line', '--name', 'CLI site']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ id: siteId, name: 'CLI site', createdAt: expect.any(String) });
    expect((await signIn(siteId, email, 'from the command line')).status).toBe(200);
    const [actor] = await owner.query<{ actor: unknown }>(sql`SELECT metadata->'actor' AS actor FROM events WHERE stream_id = ${`${siteId}/site/${siteId}`}`);
    expect(actor).toEqual({ actor: { kind: 'system', id: 'cli' } });

    const again = await runCli(['site', 'create', siteId, '--admin-email', email, '--admin-password', 'from the command line']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`svc: Site ${siteId} already exists\n`);
  });

  it('refuses a malformed id, email or password, or a missing option, and creates nothing', { timeout: 60_000 }, async () => {
    const siteId = uniqueSiteId('cli');
    const [badId, badEmail, shortPassword, missing] = await Promise.all([
      runCli(['site', 'create', 'Not Valid!', '--admin-email', 'a@b.test', '--admin-password', 'long enough']),
      runCli(['site', 'create', siteId, '--admin-email', 'not-an-email', '--admin-password', 'long enough']),
      runCli(['site', 'create', siteId, '--admin-email', 'a@b.test', '--admin-password', 'short']),
      runCli(['site', 'create', siteId, '--admin-password', 'long enough']),
    ]);
    expect(badId).toMatchObject({ code: 1, stderr: expect.stringMatching(/^svc: A site id is .*\n$/) });
    expect(badEmail).toMatchObject({ code: 1, stderr: 'svc: --admin-email must be an email address\n' });
    expect(shortPassword).toMatchObject({ code: 1, stderr: 'svc: --admin-password needs at least 8 characters\n' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/required option '--admin-email <email>' not specified/);
    expect(await owner.query(sql`SELECT 1 FROM events WHERE site_id = ${siteId} OR site_id = 'Not Valid!'`)).toEqual([]);
  });
});

describe('svc projections', () => {
  it('status lists every projection with its mode, checkpoint and lag', async () => {
    const result = await runCli(['projections', 'status']);
    expect(result.code, result.stderr).toBe(0);
    for (const projection of projections) expect(result.stdout).toMatch(new RegExp(`'${projection.name}'\\s*│\\s*'${projection.mode}'`));
    expect(result.stdout).toMatch(/checkpoint.*head.*lag/);
  });

  describe('rebuild, on a database of its own', () => {
    let fresh: FreshDatabase;
    beforeAll(async () => {
      fresh = await createFreshDatabase();
    });
    afterAll(async () => fresh?.drop());

    it('rebuilds one projection or all of them, and refuses an unknown name', { timeout: 90_000 }, async () => {
      const environment = cliEnvironment({ DATABASE_URL: fresh.url });
      const siteId = uniqueSiteId('cli');
      const created = await runCli(['site', 'create', siteId, '--admin-email', `a@${siteId}.test`, '--admin-password', 'long enough'], environment);
      expect(created.code, created.stderr).toBe(0);
      const [before] = await fresh.owner.query(sql`SELECT * FROM users WHERE site_id = ${siteId}`);

      const one = await runCli(['projections', 'rebuild', 'users'], environment);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout).toMatch(/^users: replayed 4 events in \d+ ms\n$/);
      expect(await fresh.owner.query(sql`SELECT * FROM users WHERE site_id = ${siteId}`)).toEqual([before]);

      const all = await runCli(['projections', 'rebuild', '--all'], environment);
      expect(all.code, all.stderr).toBe(0);
      for (const projection of projections) expect(all.stdout).toMatch(new RegExp(`^${projection.name}: replayed \\d+ events`, 'm'));

      const [unknown, unnamed] = await Promise.all([runCli(['projections', 'rebuild', 'nope'], environment), runCli(['projections', 'rebuild'], environment)]);
      for (const result of [unknown, unnamed]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/^svc: name a projection \(.*users.*\) or pass --all\n$/);
      }
    });
  });
});
