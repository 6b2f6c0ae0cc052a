// SVC_TRUST_PROXY and the sign-in limits as the environment gives them: a hop count or proxy
// addresses, never "every hop"; the settings that weaken a defence are named in configWarnings.
import { describe, expect, it } from 'vitest';
import { ConfigError, configWarnings, loadConfig } from '../../src/config/config.ts';

const BASE = { NODE_ENV: 'test', SVC_SECRET: 'test-secret-that-is-long-enough-0123456789' } as const;

function trustProxy(value: string | undefined) {
  return loadConfig({ ...BASE, SVC_TRUST_PROXY: value }).SVC_TRUST_PROXY;
}

/** How Fastify (proxy-addr) asks a trust function: the socket's peer is hop 0. */
function trustedHopsOf(value: string): number {
  const trust = trustProxy(value);
  if (typeof trust !== 'function') throw new Error(`not a hop count: ${String(trust)}`);
  let hops = 0;
  while (trust('203.0.113.7', hops) && hops < 100) hops += 1;
  return hops;
}

describe('SVC_TRUST_PROXY', () => {
  it('trusts no proxy when unset, empty, false or 0', () => {
    for (const value of [undefined, '', 'false', '0']) expect(trustProxy(value)).toBe(false);
  });

  it('takes a hop count as a trust function of the hop, whatever the address', () => {
    expect(trustedHopsOf('1')).toBe(1);
    expect(trustedHopsOf('3')).toBe(3);
    expect(trustProxy('2')).toHaveProperty('hops', 2);
  });

  it('reads the legacy true as one hop, never as every hop, and warns about it', () => {
    expect(trustedHopsOf('true')).toBe(1);
    const environment = { ...BASE, SVC_TRUST_PROXY: 'true' };
    expect(configWarnings(loadConfig(environment), environment)).toEqual([expect.stringMatching(/^SVC_TRUST_PROXY=true is read as 1/)]);
  });

  it('takes comma-separated addresses, CIDRs and proxy-addr range names', () => {
    expect(trustProxy(' 10.0.0.0/8, 192.168.1.4 ,::1, fd00::/8, loopback')).toEqual(['10.0.0.0/8', '192.168.1.4', '::1', 'fd00::/8', 'loopback']);
  });

  it('refuses what is neither, a /0 range (every address) and absurd hop counts, naming the variable', () => {
    for (const value of ['yes', '10.0.0.0/33', '0.0.0.0/0', '::/0', 'example.com', '10.0.0.1/8/1', '17', ',']) {
      expect(() => trustProxy(value), value).toThrow(ConfigError);
      expect(() => trustProxy(value), value).toThrow(/^invalid environment variable SVC_TRUST_PROXY: /);
    }
  });
});

describe('the sign-in limits', () => {
  it('default to 5 free failures, a 15-minute lockout, and 5 events per account and IP per hour', () => {
    const config = loadConfig(BASE);
    expect(config.SVC_SIGNIN_FAILURES_BEFORE_BACKOFF).toBe(5);
    expect(config.SVC_SIGNIN_LOCKOUT_SECONDS).toBe(900);
    expect(config.SVC_SIGNIN_FAILURE_EVENTS).toBe(5);
    expect(config.SVC_SIGNIN_FAILURE_EVENTS_WINDOW_SECONDS).toBe(3600);
    expect(configWarnings(config, BASE)).toEqual([]);
  });

  it('warns when the account limit or the per-IP auth limit is off', () => {
    const environment = { ...BASE, SVC_SIGNIN_FAILURES_BEFORE_BACKOFF: '0', SVC_RATE_LIMIT_AUTH: '0' };
    expect(configWarnings(loadConfig(environment), environment)).toEqual([
      expect.stringMatching(/^SVC_SIGNIN_FAILURES_BEFORE_BACKOFF=0/),
      expect.stringMatching(/^SVC_RATE_LIMIT_AUTH=0/),
    ]);
  });

  it('refuses a lockout of 0 seconds', () => {
    expect(() => loadConfig({ ...BASE, SVC_SIGNIN_LOCKOUT_SECONDS: '0' })).toThrow(/^invalid environment variable SVC_SIGNIN_LOCKOUT_SECONDS/);
  });
});
