// A failed sign-in on a user's stream: one attempt, or the count of a window's further attempts; and
// the backoff of the per-account limit.
import { describe, expect, it } from 'vitest';
import { userDecider } from '../../../domain/identity/user.ts';
import { checkEvent } from '../../../domain/shared/eventCatalogue.ts';
import { lockAfter } from '../../../src/rateLimit/backoffStore.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const userId = '0190f5a2-7c1e-7000-8000-000000000001';
const users = deciderSpecification(userDecider);
const created = {
  type: 'user.created',
  data: { userId, email: 'a@example.test', passwordHash: 'h', firstName: null, lastName: null, roleId: null, status: 'active' },
} as const;
const window = { from: '2024-06-01T10:00:00.000Z', to: '2024-06-01T11:00:00.000Z' };

describe('recordFailedSignIn', () => {
  it('records one attempt without a count, as before', () => {
    users.given([created]).when({ type: 'recordFailedSignIn', reason: 'wrong_password' }).then([{ type: 'user.sign_in_failed', data: { userId, reason: 'wrong_password' } }]);
  });

  it('records a window of attempts with their count', () => {
    users
      .given([created])
      .when({ type: 'recordFailedSignIn', reason: 'wrong_password', counted: { failures: 42, window } })
      .then([{ type: 'user.sign_in_failed', data: { userId, reason: 'wrong_password', failures: 42, window } }]);
  });

  it('keeps old events valid and refuses a count below one', () => {
    expect(checkEvent('user.sign_in_failed', { userId, reason: 'wrong_password' })).toHaveProperty('event');
    expect(checkEvent('auth.sign_in_failed', { emailHash: 'h', reason: 'unknown_email', failures: 3, window })).toHaveProperty('event');
    expect(checkEvent('user.sign_in_failed', { userId, reason: 'wrong_password', failures: 0, window })).toHaveProperty('problem');
  });
});

describe('the backoff of the per-account limit', () => {
  const policy = { freeAttempts: 5, maxLockMs: 900_000, forgetAfterMs: 86_400_000 };

  it('locks nothing for the free attempts, then 1 s, 2 s, 4 s … up to the longest lock', () => {
    expect([1, 2, 3, 4].map((attempts) => lockAfter(attempts, policy))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8].map((attempts) => lockAfter(attempts, policy))).toEqual([1000, 2000, 4000, 8000]);
    expect(lockAfter(15, policy)).toBe(900_000);
    expect(lockAfter(10_000, policy)).toBe(900_000);
  });
});
