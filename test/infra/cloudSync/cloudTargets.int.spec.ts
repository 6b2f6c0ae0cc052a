// The two cloud-sync clients against local servers that speak Firestore's and the Realtime
// Database's REST protocols (test/support/cloudTargetServers.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudTarget, CloudTargetError, type TargetWrite } from '../../../infra/cloudSync/cloudTarget.ts';
import { createFirestoreTarget, type FirestoreTargetOptions } from '../../../infra/cloudSync/firestore.ts';
import { createRealtimeDatabaseTarget } from '../../../infra/cloudSync/realtimeDatabase.ts';
import { createOutboundHttp, type OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import {
  type FirestoreServer,
  makeServiceAccount,
  type RealtimeDatabaseServer,
  startFirestoreServer,
  startRealtimeDatabaseServer,
} from '../../support/cloudTargetServers.ts';

/** A value of every JSON type, nested. */
const EVERY_TYPE = {
  text: 'héllo "world"',
  empty: '',
  integer: 42,
  negative: -7,
  zero: 0,
  double: 1.5,
  huge: 2 ** 60,
  yes: true,
  no: false,
  nothing: null,
  list: [1, 'two', null, { three: 3 }],
  emptyList: [],
  map: { nested: { deeper: ['a', 'b'] }, flag: false },
};

/** Awaits a rejection and hands back the CloudTargetError. */
async function targetError(promise: Promise<unknown>): Promise<CloudTargetError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CloudTargetError);
  return error as CloudTargetError;
}

/** A server that accepts connections and never answers. */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The origin of a server that was started and closed: nothing listens there. */
async function closedOrigin(): Promise<string> {
  const silent = await startSilentServer();
  await silent.close();
  return silent.url;
}

let outbound: OutboundHttp;
/** Every error message the clients produced, checked at the end for secrets. */
const messages: string[] = [];
/** Every bearer token the Firestore client sent. */
const bearerTokens = new Set<string>();

/** The outbound client, noting the bearer tokens it carries. */
const recordingHttp: OutboundHttp = {
  send(request) {
    const authorization = request.headers?.authorization;
    if (typeof authorization === 'string') bearerTokens.add(authorization.slice('Bearer '.length));
    return outbound.send(request);
  },
  checkUrl: (url) => outbound.checkUrl(url),
  close: () => outbound.close(),
};

async function failure(target: CloudTarget, writes: TargetWrite[]): Promise<CloudTargetError> {
  const error = await targetError(target.write(writes));
  messages.push(error.message);
  return error;
}

beforeAll(() => {
  outbound = createOutboundHttp({ allowPrivate: true });
});

afterAll(() => outbound.close());

describe('Firestore target', () => {
  const { account, publicKey } = makeServiceAccount();
  const stranger = makeServiceAccount();
  let server: FirestoreServer;
  let documentNumber = 0;

  // Firestore addresses a document by collection/document pairs: an even number of segments.
  const newPath = () => `cms/site/articles/doc-${(documentNumber += 1)}`;
  const firestore = (options: Partial<FirestoreTargetOptions> = {}) =>
    createFirestoreTarget({ serviceAccount: account, projectId: account.project_id, baseUrl: server.baseUrl, tokenUrl: server.tokenUrl, http: recordingHttp, timeoutMs: 5_000, ...options });

  beforeAll(async () => {
    server = await startFirestoreServer({ accounts: [{ client_email: account.client_email, publicKey }] });
  });

  afterAll(() => server.close());

  it('obtains one token and reuses it across batches', async () => {
    const target = firestore();
    const before = server.tokensIssued;
    const requestsBefore = server.requests.length;
    for (let batch = 0; batch < 3; batch += 1) expect(await target.write([{ path: newPath(), data: { batch } }])).toEqual({ failed: [] });
    expect(server.tokensIssued - before).toBe(1);
    expect(server.requests.slice(requestsBefore).map((request) => request.authorized)).toEqual([true, true, true]);
  });

  it('obtains a new token a minute before the cached one expires', async () => {
    let clock = Date.now();
    const target = firestore({ now: () => clock });
    const before = server.tokensIssued;
    await target.write([{ path: newPath(), data: { step: 1 } }]);
    clock += 3_500_000;
    await target.write([{ path: newPath(), data: { step: 2 } }]);
    expect(server.tokensIssued - before).toBe(1);
    clock += 60_000;
    await target.write([{ path: newPath(), data: { step: 3 } }]);
    expect(server.tokensIssued - before).toBe(2);
  });

  it('obtains a new token for every batch when the tokens it gets live under a minute', async () => {
    const shortLived = await startFirestoreServer({ accounts: [{ client_email: account.client_email, publicKey }], tokenTtlSeconds: 30 });
    try {
      const target = firestore({ baseUrl: shortLived.baseUrl, tokenUrl: shortLived.tokenUrl });
      await target.write([{ path: 'cms/a', data: { n: 1 } }]);
      await target.write([{ path: 'cms/b', data: { n: 2 } }]);
      expect(shortLived.tokensIssued).toBe(2);
      expect([...shortLived.documents.keys()]).toEqual(['cms/a', 'cms/b']);
    } finally {
      await shortLived.close();
    }
  });

  it('retries a batch once with a fresh token when Firestore answers 401', async () => {
    const target = firestore();
    await target.write([{ path: newPath(), data: { warm: true } }]);
    const before = server.tokensIssued;
    const path = newPath();
    server.failNext(1, 401);
    expect(await target.write([{ path, data: { retried: true } }])).toEqual({ failed: [] });
    expect(server.tokensIssued - before).toBe(1);
    expect(server.documents.get(path)).toEqual({ retried: true });
  });

  it('gives up when the fresh token is refused too (401, not retryable)', async () => {
    server.failNext(2, 401);
    const error = await failure(firestore(), [{ path: newPath(), data: { x: 1 } }]);
    expect(error).toMatchObject({ retryable: false, status: 401 });
  });

  it("refuses a service account signed with another account's key: the token endpoint says no, not retryable", async () => {
    const target = firestore({ serviceAccount: { ...account, private_key: stranger.account.private_key } });
    const error = await failure(target, [{ path: newPath(), data: { x: 1 } }]);
    expect(error).toMatchObject({ retryable: false, status: 400 });
    expect(error.message).toContain('Invalid JWT Signature');
  });

  it('refuses a private key that does not parse, without quoting it', async () => {
    const brokenKey = account.private_key.replace('MII', 'XYZ');
    const target = firestore({ serviceAccount: { ...account, private_key: brokenKey } });
    const error = await failure(target, [{ path: newPath(), data: { x: 1 } }]);
    expect(error).toMatchObject({ message: 'The service account private key does not parse', retryable: false, status: null });
    const notPem = await failure(firestore({ serviceAccount: { ...account, private_key: 'not a key' } }), [{ path: newPath(), data: { x: 1 } }]);
    expect(notPem.message).toBe('The service account private key does not parse');
  });

  it('round-trips values of every type', async () => {
    const path = newPath();
    expect(await firestore().write([{ path, data: EVERY_TYPE }])).toEqual({ failed: [] });
    expect(server.documents.get(path)).toEqual(EVERY_TYPE);
  });

  it('deletes documents, and replaces a whole document on update', async () => {
    const [kept, removed] = [newPath(), newPath()];
    const target = firestore();
    await target.write([
      { path: kept, data: { title: 'one', extra: true } },
      { path: removed, data: { title: 'two' } },
    ]);
    expect(await target.write([{ path: kept, data: { title: 'uno' } }, { path: removed, data: null }])).toEqual({ failed: [] });
    expect(server.documents.get(kept)).toEqual({ title: 'uno' });
    expect(server.documents.has(removed)).toBe(false);
  });

  it('reports a refused write in failed while the rest of the batch lands', async () => {
    const [first, last] = [newPath(), newPath()];
    const result = await firestore().write([
      { path: first, data: { n: 1 } },
      { path: 'cms/site/articles', data: { n: 2 } },
      { path: last, data: { n: 3 } },
    ]);
    expect(result.failed).toEqual([{ index: 1, error: expect.stringContaining('invalid document path') }]);
    expect(server.documents.get(first)).toEqual({ n: 1 });
    expect(server.documents.get(last)).toEqual({ n: 3 });
  });

  it('fails, without sending them, the writes Firestore would refuse: too deep, an array in an array', async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 30; level += 1) deep = { level: deep };
    const [first, last] = [newPath(), newPath()];
    const result = await firestore().write([
      { path: first, data: { n: 1 } },
      { path: newPath(), data: deep },
      { path: newPath(), data: { matrix: [[1, 2]] } },
      { path: last, data: { n: 4 } },
    ]);
    expect(result.failed).toEqual([
      { index: 1, error: 'Firestore stores maps and arrays at most 20 levels deep' },
      { index: 2, error: 'Firestore cannot store an array directly inside an array' },
    ]);
    expect(server.requests.at(-1)!.writes).toBe(2);
    expect(server.documents.get(last)).toEqual({ n: 4 });
  });

  it('sends one write per document: the last write to a path wins', async () => {
    const path = newPath();
    const result = await firestore().write([
      { path, data: { version: 1 } },
      { path, data: null },
      { path, data: { version: 3 } },
    ]);
    expect(result).toEqual({ failed: [] });
    expect(server.requests.at(-1)!.writes).toBe(1);
    expect(server.documents.get(path)).toEqual({ version: 3 });
  });

  it('splits a batch of more than 500 writes into requests of 500', async () => {
    const writes = Array.from({ length: 1201 }, (_, index) => ({ path: newPath(), data: { index } }));
    const requestsBefore = server.requests.length;
    const result = await firestore().write([...writes.slice(0, 700), { path: 'odd', data: { n: 0 } }, ...writes.slice(700)]);
    expect(result.failed).toEqual([{ index: 700, error: expect.stringContaining('invalid document path') }]);
    expect(server.requests.slice(requestsBefore).map((request) => request.writes)).toEqual([500, 500, 202]);
    expect(writes.every((write) => server.documents.get(write.path)?.index === write.data.index)).toBe(true);
  });

  it('fails a batch as retryable on 503 and 429, and as final on 403', async () => {
    const target = firestore();
    server.failNext(1, 503);
    expect(await failure(target, [{ path: newPath(), data: { x: 1 } }])).toMatchObject({ retryable: true, status: 503 });
    server.failNext(1, 429);
    expect(await failure(target, [{ path: newPath(), data: { x: 1 } }])).toMatchObject({ retryable: true, status: 429 });
    server.failNext(1, 403);
    const forbidden = await failure(target, [{ path: newPath(), data: { x: 1 } }]);
    expect(forbidden).toMatchObject({ retryable: false, status: 403 });
    expect(forbidden.message).toContain('Injected failure');
    expect(await target.write([{ path: newPath(), data: { x: 1 } }])).toEqual({ failed: [] });
  });

  it('fails as retryable when nothing listens at the address', async () => {
    const origin = await closedOrigin();
    const error = await failure(firestore({ baseUrl: origin, tokenUrl: `${origin}/token` }), [{ path: newPath(), data: { x: 1 } }]);
    expect(error).toMatchObject({ retryable: true, status: null });
  });

  it('fails as final when the outbound guard refuses the address', async () => {
    const guarded = createOutboundHttp({ allowPrivate: false });
    try {
      const error = await failure(firestore({ http: guarded }), [{ path: newPath(), data: { x: 1 } }]);
      expect(error).toMatchObject({ retryable: false, status: null });
      expect(error.message).toContain('not allowed');
    } finally {
      guarded.close();
    }
  });

  it('writes nothing and asks for no token for an empty batch', async () => {
    const before = { tokens: server.tokensIssued, requests: server.requests.length };
    expect(await firestore().write([])).toEqual({ failed: [] });
    expect({ tokens: server.tokensIssued, requests: server.requests.length }).toEqual(before);
  });

  afterAll(() => {
    const keyBody = account.private_key.split('\n')[1]!;
    const strangerKeyBody = stranger.account.private_key.split('\n')[1]!;
    expect(bearerTokens.size).toBeGreaterThan(0);
    for (const message of messages) {
      expect(message).not.toContain(keyBody);
      expect(message).not.toContain(strangerKeyBody);
      expect(message).not.toContain('PRIVATE KEY');
      for (const token of bearerTokens) expect(message).not.toContain(token);
    }
  });
});

describe('Realtime Database target', () => {
  const secret = 'rtdb-secret/with+odd&chars=yes';
  let server: RealtimeDatabaseServer;
  let itemNumber = 0;

  const newId = () => `item-${(itemNumber += 1)}`;
  const realtimeDatabase = (options: { databaseUrl?: string; secret?: string; http?: OutboundHttp; timeoutMs?: number } = {}) =>
    createRealtimeDatabaseTarget({ databaseUrl: server.url, secret, http: outbound, timeoutMs: 5_000, ...options });
  const articles = () => (server.data.cms as Record<string, Record<string, unknown>>).articles!;

  beforeAll(async () => {
    server = await startRealtimeDatabaseServer({ secret });
  });

  afterAll(() => server.close());

  it('applies writes and deletes of a batch as one multi-path update', async () => {
    const [first, second, third] = [newId(), newId(), newId()];
    const target = realtimeDatabase();
    await target.write([
      { path: `cms/articles/${first}`, data: { title: 'one' } },
      { path: `cms/articles/${second}`, data: { title: 'two' } },
    ]);
    const requestsBefore = server.requests.length;
    const result = await target.write([
      { path: `cms/articles/${first}`, data: null },
      { path: `cms/articles/${second}`, data: { title: 'deux' } },
      { path: `cms/articles/${third}`, data: { title: 'three' } },
    ]);
    expect(result).toEqual({ failed: [] });
    expect(server.requests.slice(requestsBefore)).toEqual([{ method: 'PATCH', paths: 3, authorized: true }]);
    expect(articles()[first]).toBeUndefined();
    expect(articles()[second]).toEqual({ title: 'deux' });
    expect(articles()[third]).toEqual({ title: 'three' });
  });

  it('drops the parents a delete empties, as Firebase does', async () => {
    const target = realtimeDatabase();
    await target.write([{ path: 'cms/pages/home', data: { title: 'Home' } }]);
    expect(server.data.cms).toHaveProperty('pages');
    await target.write([{ path: 'cms/pages/home', data: null }]);
    expect(server.data.cms).not.toHaveProperty('pages');
  });

  it('round-trips values of every type (nulls inside an object are absent, as Firebase stores them)', async () => {
    const id = newId();
    await realtimeDatabase().write([{ path: `cms/articles/${id}`, data: EVERY_TYPE }]);
    const { nothing: _nothing, ...withoutNull } = EVERY_TYPE;
    expect(articles()[id]).toEqual(withoutNull);
  });

  it('splits a batch of more than 1,000 paths into updates of 1,000', async () => {
    const writes = Array.from({ length: 2500 }, (_, index) => ({ path: `cms/articles/${newId()}`, data: { index } }));
    const requestsBefore = server.requests.length;
    expect(await realtimeDatabase().write(writes)).toEqual({ failed: [] });
    expect(server.requests.slice(requestsBefore).map((request) => request.paths)).toEqual([1000, 1000, 500]);
    expect(writes.every((write) => (articles()[write.path.split('/')[2]!] as { index: number }).index === write.data.index)).toBe(true);
  });

  it('refuses, as final and without sending anything, a batch with a path Firebase would refuse', async () => {
    const requestsBefore = server.requests.length;
    for (const path of ['cms/articles/a.b', 'cms/articles/a#b', 'cms/$x', 'cms/[0]', 'cms//x', '/cms/x']) {
      const error = await failure(realtimeDatabase(), [
        { path: `cms/articles/${newId()}`, data: { ok: true } },
        { path, data: { x: 1 } },
      ]);
      expect(error).toMatchObject({ retryable: false, status: null });
    }
    expect(server.requests.length).toBe(requestsBefore);
  });

  it('fails as final on a wrong secret (401)', async () => {
    const error = await failure(realtimeDatabase({ secret: 'wrong-secret' }), [{ path: `cms/articles/${newId()}`, data: { x: 1 } }]);
    expect(error).toMatchObject({ retryable: false, status: 401 });
    expect(error.message).toContain('Permission denied');
    expect(error.message).not.toContain('wrong-secret');
  });

  it('fails as retryable on 503, then writes once the database is back', async () => {
    const id = newId();
    server.failNext(1, 503);
    expect(await failure(realtimeDatabase(), [{ path: `cms/articles/${id}`, data: { x: 1 } }])).toMatchObject({ retryable: true, status: 503 });
    expect(articles()[id]).toBeUndefined();
    expect(await realtimeDatabase().write([{ path: `cms/articles/${id}`, data: { x: 1 } }])).toEqual({ failed: [] });
    expect(articles()[id]).toEqual({ x: 1 });
  });

  it('fails as retryable when nothing listens at the address', async () => {
    const error = await failure(realtimeDatabase({ databaseUrl: await closedOrigin() }), [{ path: 'cms/x', data: { x: 1 } }]);
    expect(error).toMatchObject({ retryable: true, status: null });
  });

  it('fails as retryable when the database does not answer in time', async () => {
    const silent = await startSilentServer();
    try {
      const error = await failure(realtimeDatabase({ databaseUrl: silent.url, timeoutMs: 200 }), [{ path: 'cms/x', data: { x: 1 } }]);
      expect(error).toMatchObject({ retryable: true, status: null });
    } finally {
      await silent.close();
    }
  });

  it('fails as final when the outbound guard refuses the address', async () => {
    const guarded = createOutboundHttp({ allowPrivate: false });
    try {
      const error = await failure(realtimeDatabase({ http: guarded }), [{ path: 'cms/x', data: { x: 1 } }]);
      expect(error).toMatchObject({ retryable: false, status: null });
      expect(error.message).toContain('not allowed');
    } finally {
      guarded.close();
    }
  });

  afterAll(() => {
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) {
      expect(message).not.toContain(secret);
      expect(message).not.toContain(encodeURIComponent(secret));
      expect(message).not.toContain('auth=');
    }
  });
});
