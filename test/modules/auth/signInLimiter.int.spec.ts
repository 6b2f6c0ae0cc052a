// The per-account sign-in limiter against a Redis that cannot be reached: it neither hangs nor locks
// anyone out (fail-open), unless SVC_RATE_LIMIT_FAIL_CLOSED asks for 503 RATE_LIMIT_UNAVAILABLE.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { createSignInLimiter } from '../../../src/modules/auth/signInLimits.ts';

const CLOSED_PORT = 'redis://127.0.0.1:1';

function configWith(environment: Record<string, string>) {
  return loadConfig({ NODE_ENV: 'test', SVC_SECRET: 'test-secret-that-is-long-enough-0123456789', REDIS_URL: CLOSED_PORT, ...environment });
}

const warnings: string[] = [];
const logger = { warn: (_object: Record<string, unknown>, message: string) => void warnings.push(message) };

describe('the sign-in limiter with Redis unreachable', () => {
  it('lets every attempt through at once, and warns', async () => {
    const limiter = createSignInLimiter(configWith({ SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '1' }), logger);
    try {
      const started = Date.now();
      for (let attempt = 0; attempt < 5; attempt += 1) await limiter.beforeAttempt('site-a', 'someone@example.test');
      await limiter.succeeded('site-a', 'someone@example.test');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(warnings.some((message) => message.startsWith('sign-in limit'))).toBe(true);
    } finally {
      await limiter.close();
    }
  });

  it('answers 503 RATE_LIMIT_UNAVAILABLE with SVC_RATE_LIMIT_FAIL_CLOSED', async () => {
    const limiter = createSignInLimiter(configWith({ SVC_RATE_LIMIT_FAIL_CLOSED: 'true' }), logger);
    try {
      await expect(limiter.beforeAttempt('site-a', 'someone@example.test')).rejects.toMatchObject({ code: 'RATE_LIMIT_UNAVAILABLE' });
    } finally {
      await limiter.close();
    }
  });
});
