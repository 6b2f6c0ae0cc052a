// `svc start` (what `npm start` runs): the environment is validated first, a bad value stops the start
// with one line naming the variable; a good one serves until SIGTERM, then exits cleanly.
import { describe, expect, it } from 'vitest';
import { cliEnvironment, runCli, spawnCli, waitForLine } from './runCli.ts';

describe('svc start', () => {
  it('stops with exit code 2 and one line naming the variable when a value is bad', { timeout: 60_000 }, async () => {
    const cases: [Record<string, string | undefined>, string][] = [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://db.example.test/svc' }, 'DATABASE_URL'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ NODE_ENV: 'production', SVC_SECRET: undefined }, 'SVC_SECRET'],
      [{ SVC_SECRET: 'too short' }, 'SVC_SECRET'],
    ];
    const results = await Promise.all(cases.map(([overrides]) => runCli(['start'], cliEnvironment(overrides))));
    results.forEach((result, index) => {
      const [overrides, variable] = cases[index]!;
      const label = JSON.stringify(overrides);
      expect(result.code, label).toBe(2);
      expect(result.stdout, label).toBe('');
      expect(result.stderr, label).toMatch(new RegExp(`^svc: invalid environment variable ${variable}: [^\\n]+\\n$`));
    });
  });

  it('serves on the configured port until SIGTERM, then exits with 0', { timeout: 60_000 }, async () => {
    const child = spawnCli(['start'], cliEnvironment({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const listening = JSON.parse(await waitForLine(child, (line) => line.includes('"svc listening"')));
      const health = await fetch(`${listening.address}/api/v1/utils/health`);
      expect(health.status).toBe(200);
      expect((await health.json()).data.checks.database).toBe('ok');
    } finally {
      child.kill('SIGTERM');
    }
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code, stderr).toBe(0);
  });
});
