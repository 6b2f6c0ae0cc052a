// `svc doctor` (docs/operations.md): each check says ok, warn or fail with what is wrong, and the
// command exits 1 when anything must be fixed.
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/freePort.ts';
import { cliEnvironment, runCli } from './runCli.ts';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supportedNode = (major === 22 && minor >= 15) || major >= 24;

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

async function doctor(overrides: Record<string, string | undefined>) {
  const result = await runCli(['doctor', '--json'], cliEnvironment(overrides));
  return { code: result.code, checks: (JSON.parse(result.stdout) as { checks: Check[] }).checks, stdout: result.stdout };
}

describe('svc doctor', { timeout: 120_000 }, () => {
  it('says ok for a deployment whose parts all answer', async () => {
    const { code, checks } = await doctor({ REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const byName = Object.fromEntries(checks.map((check) => [check.name, check]));
    expect(byName.configuration).toMatchObject({ status: 'ok' });
    expect(byName.database).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^PostgreSQL \d+\.\d+, every migration applied$/) });
    expect(byName.redis).toMatchObject({ status: 'ok', detail: expect.stringContaining('answers') });
    expect(byName.nats).toMatchObject({ status: 'ok', detail: expect.stringContaining('JetStream') });
    expect(byName.storage).toMatchObject({ status: 'ok', detail: expect.stringContaining('an object written and removed') });
    expect(byName.smtp).toMatchObject({ status: 'warn', detail: expect.stringContaining('SMTP_URL is not set') });
    expect(byName.node!.status).toBe(supportedNode ? 'ok' : 'fail');
    expect(code).toBe(supportedNode ? 0 : 1);
  });

  it('names each part that does not answer, and exits 1', async () => {
    const [database, redis, nats] = await Promise.all([freePort(), freePort(), freePort()]);
    const { code, checks, stdout } = await doctor({
      DATABASE_URL: `postgres://svc:hunter2-secret@127.0.0.1:${database}/none`,
      REDIS_URL: `redis://:redis-secret@127.0.0.1:${redis}`,
      NATS_URL: `nats://127.0.0.1:${nats}`,
    });
    expect(code).toBe(1);
    const failing = checks.filter((check) => check.status === 'fail').map((check) => check.name);
    expect(failing).toEqual(expect.arrayContaining(['database', 'redis', 'nats']));
    expect(checks.find((check) => check.name === 'database')!.detail).toContain('ECONNREFUSED');
    // Passwords in URLs never reach the report.
    expect(stdout).not.toContain('hunter2-secret');
    expect(stdout).not.toContain('redis-secret');
  });

  it('stops at a configuration that does not parse, naming the variable', async () => {
    const { code, checks } = await doctor({ SVC_METRICS_PORT: 'not-a-port' });
    expect(code).toBe(1);
    expect(checks).toEqual([{ name: 'configuration', status: 'fail', detail: expect.stringContaining('SVC_METRICS_PORT') }]);
  });

  it('holds production to what production needs', async () => {
    const { code, checks } = await doctor({ NODE_ENV: 'production', SVC_PUBLIC_URL: 'http://cms.example.com' });
    expect(code).toBe(1);
    const production = checks.filter((check) => check.name === 'production');
    expect(production).toEqual(
      expect.arrayContaining([
        { name: 'production', status: 'ok', detail: 'DATABASE_URL is set' },
        { name: 'production', status: 'fail', detail: expect.stringContaining('SVC_PUBLIC_URL is http://cms.example.com') },
        { name: 'production', status: 'warn', detail: expect.stringContaining('REDIS_URL is not set') },
      ]),
    );
  });
});
