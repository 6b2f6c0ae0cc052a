// The Redis broker across instances when its first SUBSCRIBE times out: a Redis of the test's own in
// front of which a proxy holds back the answer to the first SUBSCRIBE past the command timeout, as a
// boot under CPU pressure does. The broker subscribes again, and what it publishes reaches the others.
import { createServer, connect, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../../infra/redis/redis.ts';
import { createRedisBroker, type RealtimeBroker } from '../../../src/modules/realtime/realtimeBroker.ts';
import type { RealtimeMessage } from '../../../src/modules/realtime/realtimeFrames.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const target = new URL(REDIS_URL);

/** A TCP proxy to Redis that delays the server's bytes after the first SUBSCRIBE it sees by `delayMs`. */
async function slowFirstSubscribe(delayMs: number): Promise<{ url: string; server: Server }> {
  let delayed = false;
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    let holdUntil = 0;
    client.on('data', (chunk) => {
      if (!delayed && chunk.toString().toUpperCase().includes('SUBSCRIBE')) {
        delayed = true;
        holdUntil = Date.now() + delayMs;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      const wait = holdUntil - Date.now();
      if (wait > 0) setTimeout(() => client.writable && client.write(chunk), wait);
      else if (client.writable) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `redis://127.0.0.1:${port}`, server };
}

const brokers: RealtimeBroker[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(brokers.map((broker) => broker.close()));
  for (const server of servers) server.close();
});

function received(broker: RealtimeBroker): RealtimeMessage[] {
  const messages: RealtimeMessage[] = [];
  broker.subscribe((message) => messages.push(message));
  return messages;
}

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the Redis realtime broker', () => {
  it('subscribes again when its first SUBSCRIBE times out, so what it publishes reaches the other instances', async () => {
    const channel = `svc-test-broker-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const proxy = await slowFirstSubscribe(REDIS_COMMAND_TIMEOUT_MS + 500);
    servers.push(proxy.server);
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const slow = createRedisBroker({ redisUrl: proxy.url, channel, logger });
    const other = createRedisBroker({ redisUrl: REDIS_URL, channel, logger: pino({ level: 'silent' }) });
    brokers.push(slow, other);
    const atSlow = received(slow);
    const atOther = received(other);

    // The first SUBSCRIBE timed out (the proxy held its answer back) and was sent again.
    await eventually(() => lines.some((line) => line.includes('realtime broker could not subscribe')));
    // Published until the other instance hears it: before the second SUBSCRIBE lands it stays local.
    await eventually(() => {
      void slow.publish([{ siteId: 'site-a', frames: [] }]);
      return atOther.length > 0;
    });
    // Heard back through Redis by both, not handed to its own sessions alone.
    expect(atOther[0]!.siteId).toBe('site-a');
    await eventually(() => atSlow.length >= atOther.length);
    await other.publish([{ siteId: 'site-b', frames: [] }]);
    await eventually(() => atSlow.some((message) => message.siteId === 'site-b'));
  });
});
