// A GraphQL subscription over Server-Sent Events for tests: collects the `data:` payloads and tells
// when the server ends the stream (no sleeps).
import { expect } from 'vitest';
import type { TestService } from '../../support/testService.ts';

export interface SseStream {
  /** Every `data:` payload received so far. */
  payloads: any[];
  /** Resolves with the payloads once the server ends the stream. */
  ended: Promise<any[]>;
  /** Resolves once `count` payloads have arrived (rejects if the stream ends first). */
  received(count: number): Promise<any[]>;
  close(): void;
}

/** Opens a subscription over SSE; resolves once the server answered with the stream's headers. */
export async function openSubscription(target: TestService, siteId: string, token: string, query: string): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(`${target.url}/api/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-svc-site': siteId, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const payloads: any[] = [];
  const waiters = new Set<() => void>();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return payloads;
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const data = buffered.slice(0, end).split('\n').find((line) => line.startsWith('data:'));
        buffered = buffered.slice(end + 2);
        if (data && data.slice(5).trim()) payloads.push(JSON.parse(data.slice(5)));
        for (const waiter of [...waiters]) waiter();
      }
    }
  })();
  function received(count: number): Promise<any[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (payloads.length < count) return;
        waiters.delete(check);
        resolve(payloads);
      };
      waiters.add(check);
      check();
      ended.then(() => reject(new Error(`the stream ended after ${JSON.stringify(payloads)}`)), reject);
    });
  }
  return { payloads, ended, received, close: () => controller.abort() };
}
