// When a failed webhook delivery is tried again, and when a subscription that keeps failing is dead.
// Exponential backoff with "equal jitter": half the delay is fixed, half random, so retries of many
// subscriptions that failed together spread out.

export interface RetryPolicy {
  /** Delay after the first failure. */
  baseMs: number;
  /** Ceiling of any one delay. */
  maxMs: number;
  /** Consecutive failed attempts after which the subscription is dead. */
  maxAttempts: number;
}

/** Delay before the next attempt after `failures` consecutive failures (1 or more); `random` in [0, 1). */
export function retryDelayMs(failures: number, policy: RetryPolicy, random: number): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}

export function isExhausted(failures: number, policy: RetryPolicy): boolean {
  return failures >= policy.maxAttempts;
}
