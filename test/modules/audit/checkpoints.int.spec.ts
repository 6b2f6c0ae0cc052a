// Signed checkpoints of a site's log (docs/verifiable-history.md). The scheduler task takes them
// every SVC_CHECKPOINT_EVERY events, or SVC_CHECKPOINT_INTERVAL after the last one. Each signature
// verifies offline with the public key alone, and each checkpoint chains to the one before it.
// GET /audit/checkpoints lists them to the site's administrators. GET /audit/verify finds a deleted
// stream, a cut tail and an altered checkpoint. The file has its own database: the task reads the
// whole log, and here that log holds this file's sites only.
import { createHash, createPublicKey, randomUUID, verify as verifySignature, type JsonWebKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { streamId } from '../../../domain/shared/events.ts';
import { appendToStream } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { createDatabase } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { EMPTY_HEAD, nextHeadHash } from '../../../src/modules/audit/checkpointFold.ts';
import { checkpointListStatements } from '../../../src/modules/audit/checkpointQueries.ts';
import { takeLogCheckpoints } from '../../../src/modules/audit/checkpointTask.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { createMember } from '../identity/support/identity.ts';

const EVERY = 5;
const HOUR = 3_600_000;
const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url, SVC_CHECKPOINT_EVERY: String(EVERY) });
const owner = fresh.owner;

interface SiteWithSession extends TestSite {
  sessionStream: string;
}

/** A fresh site whose admin signed in once more and refreshed `refreshes` times (a session stream of 1 + refreshes events). */
async function siteWithSession(refreshes: number): Promise<SiteWithSession> {
  const site = await createTestSite(service, 'ckpt');
  const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
  expect(login.status).toBe(200);
  let refreshToken = login.body.data.refreshToken as string;
  for (let n = 0; n < refreshes; n += 1) {
    const refreshed = await service.request('POST', '/auth/refresh', { site: site.siteId, body: { refreshToken } });
    expect(refreshed.status).toBe(200);
    refreshToken = refreshed.body.data.refreshToken;
  }
  return { ...site, sessionStream: streamId(site.siteId, 'session', refreshToken.split('.')[0]!) };
}

async function siteEventCount(siteId: string): Promise<number> {
  const [row] = await owner.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM events WHERE site_id = ${siteId}`);
  return row!.n;
}

/**
 * Runs the task at `now` until it has read every event of the site. An event is only read once no
 * older transaction of the server can still commit, and other test files' transactions count too.
 */
async function foldSite(siteId: string, now: Date): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await takeLogCheckpoints(service.context, now);
    const [row] = await owner.query<{ folded: number | null }>(sql`SELECT event_count AS folded FROM log_checkpoint_heads WHERE site_id = ${siteId}`);
    if (row?.folded === (await siteEventCount(siteId))) return;
    if (Date.now() > deadline) throw new Error(`the log of ${siteId} was not read in time`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The site's events in log order (transaction, position), as the checkpoints cover them. */
/** Appends one item event in `tx`, as the items routes would. */
async function appendItem(tx: Queryable, siteId: string): Promise<void> {
  const itemId = randomUUID();
  const at = new Date().toISOString();
  await appendToStream(tx, {
    siteId,
    streamId: streamId(siteId, 'item', 'articles', itemId),
    expectedVersion: 'no_stream',
    events: [{
      type: 'item.created',
      data: { collection: 'articles', itemId, snapshot: { id: itemId, status: 'draft', sort: null, createdAt: at, updatedAt: at, userCreated: null, userUpdated: null, deletedAt: null }, delta: {} },
    }],
    metadata: { actor: { kind: 'system', id: 'checkpoint-test' } },
  });
}

async function eventsInLogOrder(siteId: string) {
  return owner.query<{ position: number; stream_id: string; stream_position: number; hash: string; tx_id: string }>(sql`
    SELECT position, stream_id, stream_position, hash, tx_id::text AS tx_id FROM events WHERE site_id = ${siteId} ORDER BY tx_id, position`);
}

async function listCheckpoints(site: TestSite, query = 'limit=200') {
  const response = await service.request('GET', `/audit/checkpoints?${query}`, { site: site.siteId, token: site.adminToken });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as {
    data: {
      seq: number; position: number; eventCount: number; streamCount: number; headHash: string; previousDigest: string | null; digest: string;
      createdAt: string; keyId: string; algorithm: string; payload: string; signature: string;
    }[];
    meta: { total: number; page: number; pageSize: number; publicKey: { keyId: string; algorithm: string; pem: string; jwk: JsonWebKey & { kid: string } } };
  };
}

async function verifyLog(site: TestSite) {
  const response = await service.request('GET', '/audit/verify', { site: site.siteId, token: site.adminToken });
  expect(response.status).toBe(200);
  return response.body.data as {
    valid: boolean;
    eventsChecked: number;
    streamsChecked: number;
    firstBrokenLink: unknown;
    checkpoints: { checked: number; latestSeq: number | null; problems: { kind: string; streamId?: string; checkpointSeq: number; detail: string }[] };
  };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('taking checkpoints', () => {
  it('takes one every SVC_CHECKPOINT_EVERY events of the site, over its log in log order, each chained to the one before', async () => {
    const site = await siteWithSession(7); // 5 events of the new site, 1 sign-in, 7 refreshes
    const now = new Date();
    await foldSite(site.siteId, now);
    const events = await eventsInLogOrder(site.siteId);
    expect(events).toHaveLength(13);
    const { data } = await listCheckpoints(site);
    const checkpoints = [...data].reverse();
    expect(checkpoints.map((checkpoint) => [checkpoint.seq, checkpoint.eventCount])).toEqual([
      [1, 5],
      [2, 10],
    ]);
    let previousDigest: string | null = null;
    for (const checkpoint of checkpoints) {
      const covered = events.slice(0, checkpoint.eventCount);
      const head = covered.reduce((previous, event) => nextHeadHash(previous, event.position, event.hash), EMPTY_HEAD);
      expect(checkpoint).toMatchObject({
        position: covered.at(-1)!.position,
        headHash: head,
        streamCount: new Set(covered.map((event) => event.stream_id)).size,
        previousDigest,
        digest: sha256(checkpoint.payload),
        createdAt: now.toISOString(),
        keyId: service.context.signingKey.keyId,
        algorithm: 'Ed25519',
      });
      expect(JSON.parse(checkpoint.payload)).toMatchObject({
        type: 'svc.log-checkpoint',
        siteId: site.siteId,
        seq: checkpoint.seq,
        lastTxId: covered.at(-1)!.tx_id,
        position: checkpoint.position,
        eventCount: checkpoint.eventCount,
        headHash: head,
        previousDigest,
      });
      previousDigest = checkpoint.digest;
    }
    // The 3 events after the second checkpoint wait for the next one.
    await takeLogCheckpoints(service.context, now);
    expect((await listCheckpoints(site)).meta.total).toBe(2);
  });

  it('takes a checkpoint of the events that follow the last one once SVC_CHECKPOINT_INTERVAL has passed', async () => {
    const site = await siteWithSession(2); // 8 events: one checkpoint by count, 3 events left
    const start = new Date(Date.UTC(2031, 0, 1));
    await foldSite(site.siteId, start);
    expect((await listCheckpoints(site)).data.map((checkpoint) => checkpoint.eventCount)).toEqual([5]);

    await takeLogCheckpoints(service.context, new Date(start.getTime() + HOUR / 2));
    expect((await listCheckpoints(site)).meta.total).toBe(1);

    const due = new Date(start.getTime() + HOUR);
    await takeLogCheckpoints(service.context, due);
    const { data } = await listCheckpoints(site);
    expect(data.map((checkpoint) => [checkpoint.seq, checkpoint.eventCount, checkpoint.createdAt])).toEqual([
      [2, 8, due.toISOString()],
      [1, 5, start.toISOString()],
    ]);
    expect(data[0]!.previousDigest).toBe(data[1]!.digest);

    // Nothing follows the last checkpoint: no new one, however long after.
    await takeLogCheckpoints(service.context, new Date(start.getTime() + 10 * HOUR));
    expect((await listCheckpoints(site)).meta.total).toBe(2);
  });

  it('never covers a later event while an earlier transaction may still commit below it', async () => {
    const site = await siteWithSession(0); // 6 events: one checkpoint, 1 event left
    const start = new Date(Date.UTC(2033, 0, 1));
    await foldSite(site.siteId, start);
    let appended!: () => void;
    let release!: () => void;
    const appendedInOpenTransaction = new Promise<void>((resolve) => (appended = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const slowWriter = service.context.database.withSite(site.siteId, async (tx) => {
      await appendItem(tx, site.siteId);
      appended();
      await released;
    });
    await appendedInOpenTransaction;
    // A later write commits first: its position is higher, and so is its transaction id.
    await service.context.database.withSite(site.siteId, (tx) => appendItem(tx, site.siteId));
    await takeLogCheckpoints(service.context, start);
    await takeLogCheckpoints(service.context, new Date(start.getTime() + HOUR));
    const [folded] = await owner.query<{ event_count: number }>(sql`SELECT event_count FROM log_checkpoint_heads WHERE site_id = ${site.siteId}`);
    expect(folded!.event_count).toBe(6);
    // The interval's checkpoint covers the site's sixth event, not the later write past the open transaction.
    expect((await listCheckpoints(site)).data.map((checkpoint) => checkpoint.eventCount)).toEqual([6, 5]);

    release();
    await slowWriter;
    await foldSite(site.siteId, start);
    await takeLogCheckpoints(service.context, new Date(start.getTime() + 2 * HOUR));
    const { data } = await listCheckpoints(site);
    expect(data.map((checkpoint) => checkpoint.eventCount)).toEqual([8, 6, 5]);
    const events = await eventsInLogOrder(site.siteId);
    expect(data[0]!.headHash).toBe(events.reduce((previous, event) => nextHeadHash(previous, event.position, event.hash), EMPTY_HEAD));
    expect(await verifyLog(site)).toMatchObject({ valid: true, checkpoints: { checked: 3, problems: [] } });
  });

  it('reads nothing once the service is stopping', async () => {
    const site = await createTestSite(service, 'ckpt');
    expect(await takeLogCheckpoints(service.context, new Date(), AbortSignal.abort())).toEqual({ eventsRead: 0, checkpointsTaken: 0, caughtUp: false });
    const [state] = await owner.query(sql`SELECT 1 FROM log_checkpoint_heads WHERE site_id = ${site.siteId}`);
    expect(state).toBeUndefined();
  });

  it('computes the head in SQL as in TypeScript', async () => {
    const [row] = await owner.query<{ head: string }>(sql`SELECT svc_checkpoint_next_head(svc_checkpoint_next_head('', 41, 'abc'), 42, 'def') AS head`);
    expect(row!.head).toBe(nextHeadHash(nextHeadHash(EMPTY_HEAD, 41, 'abc'), 42, 'def'));
  });
});

describe('GET /audit/checkpoints', () => {
  it('signs each checkpoint so that it verifies offline with the public key of the answer alone', async () => {
    const site = await siteWithSession(10);
    await foldSite(site.siteId, new Date());
    const { data, meta } = await listCheckpoints(site);
    expect(data.length).toBeGreaterThanOrEqual(2);
    expect(meta.publicKey).toMatchObject({ keyId: service.context.signingKey.keyId, algorithm: 'Ed25519', jwk: { kty: 'OKP', crv: 'Ed25519' } });
    const fromPem = createPublicKey(meta.publicKey.pem);
    const fromJwk = createPublicKey({ key: meta.publicKey.jwk, format: 'jwk' });
    for (const checkpoint of data) {
      const signature = Buffer.from(checkpoint.signature, 'base64url');
      expect(verifySignature(null, Buffer.from(checkpoint.payload, 'utf8'), fromPem, signature)).toBe(true);
      expect(verifySignature(null, Buffer.from(checkpoint.payload, 'utf8'), fromJwk, signature)).toBe(true);
      const altered = checkpoint.payload.replace(`"eventCount":${checkpoint.eventCount}`, `"eventCount":${checkpoint.eventCount + 1}`);
      expect(verifySignature(null, Buffer.from(altered, 'utf8'), fromPem, signature)).toBe(false);
    }
  });

  it('lists newest first, a page at a time, and refuses bad limits and pages', async () => {
    const site = await siteWithSession(16); // 21 events: 4 checkpoints
    await foldSite(site.siteId, new Date());
    const all = await listCheckpoints(site);
    expect(all.data.map((checkpoint) => checkpoint.seq)).toEqual([4, 3, 2, 1]);
    expect(all.meta).toMatchObject({ total: 4, page: 1, pageSize: 200 });
    const second = await listCheckpoints(site, 'limit=2&page=2');
    expect(second.meta).toMatchObject({ total: 4, page: 2, pageSize: 2 });
    expect(second.data).toEqual(all.data.slice(2, 4));
    expect((await listCheckpoints(site, 'limit=2&page=3')).data).toEqual([]);
    expect((await listCheckpoints(site)).meta.pageSize).toBe(200);
    expect((await service.request('GET', '/audit/checkpoints', { site: site.siteId, token: site.adminToken })).body.meta.pageSize).toBe(25);

    for (const [query, path] of [['limit=0', ['query', 'limit']], ['limit=201', ['query', 'limit']], ['page=0', ['query', 'page']], ['limit=x', ['query', 'limit']]] as const) {
      const response = await service.request('GET', `/audit/checkpoints?${query}`, { site: site.siteId, token: site.adminToken });
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0], query).toMatchObject({ code: 'VALIDATION_FAILED', path });
    }
  });

  it('answers 401 without credentials and 403 to a member who is not an administrator', async () => {
    const site = await createTestSite(service, 'ckpt');
    const anonymous = await service.request('GET', '/audit/checkpoints', { site: site.siteId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].code).toBe('UNAUTHENTICATED');
    const member = await createMember(service, site);
    const asMember = await service.request('GET', '/audit/checkpoints', { site: site.siteId, token: member.token });
    expect(asMember.status).toBe(403);
    expect(asMember.body.errors[0].code).toBe('PERMISSION_DENIED');
    const verifyAsMember = await service.request('GET', '/audit/verify', { site: site.siteId, token: member.token });
    expect(verifyAsMember.status).toBe(403);
  });

  it("never shows site A's checkpoints to site B", async () => {
    const siteA = await siteWithSession(6);
    const siteB = await siteWithSession(1);
    const now = new Date();
    await foldSite(siteA.siteId, now);
    await foldSite(siteB.siteId, now);
    const ofA = await listCheckpoints(siteA);
    const ofB = await listCheckpoints(siteB);
    expect(ofA.meta.total).toBe(2);
    expect(ofB.meta.total).toBe(1);
    expect(ofB.data.every((checkpoint) => JSON.parse(checkpoint.payload).siteId === siteB.siteId)).toBe(true);
    expect(ofB.data.map((checkpoint) => checkpoint.digest)).not.toContain(ofA.data[0]!.digest);
    const crossSite = await service.request('GET', '/audit/checkpoints', { site: siteA.siteId, token: siteB.adminToken });
    expect(crossSite.status).toBe(401);
  });
});

describe('the checkpoint list on many sites', () => {
  it('reads a page newest first, and the total, from the primary key', async () => {
    // 40 sites of 2,500 checkpoints each, beside this file's real ones (the filler has no events).
    await owner.query(sql`
      INSERT INTO log_checkpoints (site_id, seq, tx_id, position, event_count, stream_count, streams_touched, streams_digest, head_hash,
                                   previous_digest, digest, key_id, algorithm, payload, signature, created_at)
      SELECT 'filler-' || (g % 40), g / 40 + 1, '1', g, g, 1, 1, 'd', 'h', NULL, 'd', 'k', 'Ed25519', '{}', 's', now()
        FROM generate_series(0, 99999) AS g`);
    await owner.query(sql`ANALYZE log_checkpoints`);
    const app = createDatabase({ connectionString: fresh.url, poolSize: 1 });
    try {
      const planOf = async (statement: SqlFragment) => {
        const [row] = await app.withSite('filler-7', (tx) => tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(sql`EXPLAIN (FORMAT JSON) ${statement}`));
        return nodesOf(row!['QUERY PLAN'][0].Plan);
      };
      const statements = checkpointListStatements('filler-7', { limit: 25, page: 3 });
      const page = await planOf(statements.page);
      expect(page.some((node) => node['Index Name'] === 'log_checkpoints_pkey' && node['Node Type'] === 'Index Scan')).toBe(true);
      expect(page.filter((node) => node['Node Type'] === 'Sort' || node['Node Type'] === 'Seq Scan')).toEqual([]);
      const total = await planOf(statements.total);
      expect(total.some((node) => node['Index Name'] === 'log_checkpoints_pkey')).toBe(true);
      expect(total.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

describe('GET /audit/verify against the checkpoints', () => {
  /** A site with a 4-event session stream whose every event a checkpoint covers (the last one by the interval). */
  async function coveredSite(): Promise<SiteWithSession> {
    const site = await siteWithSession(3);
    const start = new Date(Date.UTC(2032, 0, 1));
    await foldSite(site.siteId, start);
    await takeLogCheckpoints(service.context, new Date(start.getTime() + HOUR));
    const { data } = await listCheckpoints(site);
    expect(data[0]!.eventCount).toBe(await siteEventCount(site.siteId));
    return site;
  }

  it('finds an untouched log valid, with every checkpoint checked', async () => {
    const site = await coveredSite();
    const [counts] = await owner.query<{ streams: number }>(sql`SELECT count(DISTINCT stream_id)::int AS streams FROM events WHERE site_id = ${site.siteId}`);
    expect(await verifyLog(site)).toEqual({
      valid: true,
      eventsChecked: await siteEventCount(site.siteId),
      streamsChecked: counts!.streams,
      firstBrokenLink: null,
      checkpoints: { checked: 2, latestSeq: 2, problems: [] },
      erasures: { executed: 0, latest: [] },
    });
  });

  it('answers no checkpoint checked for a site the task has not read yet', async () => {
    const site = await createTestSite(service, 'ckpt');
    expect(await verifyLog(site)).toMatchObject({ valid: true, checkpoints: { checked: 0, latestSeq: null, problems: [] } });
  });

  it('reports a missing stream when every event of a stream was deleted', async () => {
    const site = await coveredSite();
    await owner.query(sql`DELETE FROM events WHERE stream_id = ${site.sessionStream}`);
    const result = await verifyLog(site);
    expect(result).toMatchObject({ valid: false, firstBrokenLink: null });
    expect(result.checkpoints.problems).toContainEqual({ kind: 'missing_stream', streamId: site.sessionStream, checkpointSeq: 2, detail: expect.any(String) });
    expect(result.checkpoints.problems.filter((problem) => problem.kind === 'truncated_tail')).toEqual([]);
  });

  it("reports a truncated tail when a stream's newest events were deleted", async () => {
    const site = await coveredSite();
    await owner.query(sql`DELETE FROM events WHERE stream_id = ${site.sessionStream} AND stream_position = 4`);
    const result = await verifyLog(site);
    expect(result).toMatchObject({ valid: false, firstBrokenLink: null });
    expect(result.checkpoints.problems).toContainEqual({ kind: 'truncated_tail', streamId: site.sessionStream, checkpointSeq: 2, detail: expect.any(String) });
    expect(result.checkpoints.problems.filter((problem) => problem.kind === 'missing_stream')).toEqual([]);
  });

  it('reports a checkpoint mismatch when a checkpoint row was altered', async () => {
    const site = await coveredSite();
    await owner.query(sql`UPDATE log_checkpoints SET event_count = event_count + 1 WHERE site_id = ${site.siteId} AND seq = 1`);
    const result = await verifyLog(site);
    expect(result.valid).toBe(false);
    expect(result.checkpoints.problems.length).toBeGreaterThan(0);
    expect(result.checkpoints.problems.every((problem) => problem.kind === 'checkpoint_mismatch' && problem.checkpointSeq === 1)).toBe(true);
    expect(result.checkpoints.problems[0]!.detail).toContain('eventCount');
  });

  it('reports a checkpoint mismatch when a checkpoint payload was altered', async () => {
    const site = await coveredSite();
    await owner.query(sql`UPDATE log_checkpoints SET payload = replace(payload, '"eventCount":5', '"eventCount":4') WHERE site_id = ${site.siteId} AND seq = 1`);
    const result = await verifyLog(site);
    expect(result.valid).toBe(false);
    expect(result.checkpoints.problems).toContainEqual(expect.objectContaining({ kind: 'checkpoint_mismatch', checkpointSeq: 1 }));
    // The payload is no longer what was signed, either.
    expect(result.checkpoints.problems).toContainEqual(expect.objectContaining({ kind: 'bad_signature', checkpointSeq: 1 }));
  });

  it('reports a checkpoint mismatch when a checkpoint was deleted, or the stream heads it signs were altered', async () => {
    const site = await coveredSite();
    await owner.query(sql`UPDATE log_checkpoint_streams SET hash = repeat('0', 64) WHERE site_id = ${site.siteId} AND seq = 2 AND stream_id = ${site.sessionStream}`);
    const altered = await verifyLog(site);
    expect(altered.valid).toBe(false);
    expect(altered.checkpoints.problems.map((problem) => [problem.kind, problem.checkpointSeq])).toContainEqual(['checkpoint_mismatch', 2]);

    await owner.query(sql`DELETE FROM log_checkpoints WHERE site_id = ${site.siteId} AND seq = 1`);
    const deleted = await verifyLog(site);
    expect(deleted.checkpoints).toMatchObject({ checked: 1, latestSeq: 2 });
    expect(deleted.checkpoints.problems).toContainEqual({ kind: 'checkpoint_mismatch', checkpointSeq: 2, detail: 'Checkpoint 1 is missing' });
  });

  it('reports a bad signature, and only that, when a signature was altered', async () => {
    const site = await coveredSite();
    const forged = service.context.signingKey.sign('something else');
    await owner.query(sql`UPDATE log_checkpoints SET signature = ${forged} WHERE site_id = ${site.siteId} AND seq = 2`);
    const result = await verifyLog(site);
    expect(result).toMatchObject({ valid: false, firstBrokenLink: null });
    expect(result.checkpoints.problems).toEqual([{ kind: 'bad_signature', checkpointSeq: 2, detail: expect.any(String) }]);
  });
});
