// The writes besides items a drill's load makes, each remembered by what the service acknowledged:
// releases (created with one fresh draft each, then published), manual flow runs, and file uploads
// (raw bytes through POST /media/:key). `verify` reads every acknowledged one back over HTTP.
import { createHash, randomBytes } from 'node:crypto';
import { call, must, StatusTally } from './http.ts';
import type { Target } from './itemLoad.ts';

export interface AcknowledgedRelease {
  id: string;
  itemId: string;
  /** The publish answered 200 with status published. */
  published: boolean;
}

export interface AcknowledgedFile {
  id: string;
  key: string;
  digest: string;
}

export interface MixedWrites {
  releases: AcknowledgedRelease[];
  runs: string[];
  files: AcknowledgedFile[];
  tally: StatusTally;
  /** One write of kind `iteration % 3`: a release (create and publish), a flow run, a file. */
  write(iteration: number, target: Target): Promise<void>;
}

export interface MixedSetup {
  siteId: string;
  token: string;
  /** An active manual flow whose runs the load starts. */
  manualFlowId: string;
  collection: string;
}

/** A flow of one `log` step at debug level (no side effect): what the runs execute. */
export function logFlow(name: string, trigger: 'manual' | 'event', collection?: string): Record<string, unknown> {
  return {
    name,
    status: 'active',
    trigger,
    ...(trigger === 'event' ? { triggerOptions: { collection, action: 'create' } } : {}),
    graph: { nodes: [{ id: 'note', operation: 'log', options: { message: '{{ $flow.name }} ran', level: 'debug' } }], edges: [] },
  };
}

export function createMixedWrites(setup: MixedSetup): MixedWrites {
  const releases: AcknowledgedRelease[] = [];
  const runs: string[] = [];
  const files: AcknowledgedFile[] = [];
  const tally = new StatusTally();
  const options = (body?: unknown) => ({ site: setup.siteId, token: setup.token, body });

  async function release(target: Target): Promise<void> {
    const draft = await call(target.base, 'POST', `/items/${setup.collection}`, options({ title: 'release draft', n: 0, status: 'draft' }));
    tally.add(draft.status);
    if (draft.status !== 201) return;
    const created = await call(target.base, 'POST', '/releases', options({
      name: `crash ${randomBytes(3).toString('hex')}`,
      addItems: [{ collection: setup.collection, itemId: draft.body.data.id, targetStatus: 'published' }],
    }));
    tally.add(created.status);
    if (created.status !== 201) return;
    const acknowledged = { id: created.body.data.id as string, itemId: draft.body.data.id as string, published: false };
    releases.push(acknowledged);
    const published = await call(target.base, 'POST', `/releases/${acknowledged.id}/publish`, options());
    tally.add(published.status);
    acknowledged.published = published.status === 200 && published.body.data.status === 'published';
  }

  async function run(target: Target): Promise<void> {
    const answer = await call(target.base, 'POST', `/flows/${setup.manualFlowId}/run`, options({ from: target.name }));
    tally.add(answer.status);
    if (answer.status === 202) runs.push(answer.body.data.runId);
  }

  async function file(target: Target): Promise<void> {
    // One path segment: the route's :key takes no slash.
    const key = `drill-${randomBytes(8).toString('hex')}.txt`;
    const bytes = `drill file ${key} ${randomBytes(32).toString('hex')}\n`;
    const answer = await call(target.base, 'POST', `/media/${key}`, { site: setup.siteId, token: setup.token, raw: { bytes, type: 'text/plain' } });
    tally.add(answer.status);
    if (answer.status === 201) files.push({ id: answer.body.data.id, key, digest: createHash('sha256').update(bytes).digest('hex') });
  }

  return {
    releases,
    runs,
    files,
    tally,
    async write(iteration, target) {
      const kind = iteration % 3;
      if (kind === 0) await release(target);
      else if (kind === 1) await run(target);
      else await file(target);
    },
  };
}

export interface MixedVerification {
  /** What was acknowledged and is not there (or not as acknowledged). */
  lost: string[];
  /** Acknowledged runs not finished (queued or running) when read. */
  unfinishedRuns: number;
}

export async function verifyMixedWrites(base: string, setup: MixedSetup, writes: MixedWrites): Promise<MixedVerification> {
  const lost: string[] = [];
  const options = { site: setup.siteId, token: setup.token };
  for (const release of writes.releases) {
    const answer = await call(base, 'GET', `/releases/${release.id}`, options);
    if (answer.status !== 200) lost.push(`release ${release.id}: ${answer.status}`);
    else if (release.published && answer.body.data.status !== 'published') lost.push(`release ${release.id}: published, now ${answer.body.data.status}`);
    if (release.published) {
      const item = await call(base, 'GET', `/items/${setup.collection}/${release.itemId}?fields=id,status`, options);
      if (item.body?.data?.status !== 'published') lost.push(`item ${release.itemId} of published release ${release.id}: status ${item.body?.data?.status ?? item.status}`);
    }
  }
  let unfinishedRuns = 0;
  for (const runId of writes.runs) {
    const answer = await call(base, 'GET', `/flows/${setup.manualFlowId}/runs/${runId}`, options);
    if (answer.status !== 200) lost.push(`flow run ${runId}: ${answer.status}`);
    else if (answer.body.data.status === 'queued' || answer.body.data.status === 'running') unfinishedRuns += 1;
  }
  for (const file of writes.files) {
    const record = await call(base, 'GET', `/files/${file.id}`, options);
    if (record.status !== 200) lost.push(`file ${file.id}: ${record.status}`);
    const bytes = await fetch(`${base}/api/v1/media/${file.key}`, { headers: { 'x-svc-site': setup.siteId, authorization: `Bearer ${setup.token}` } });
    const digest = createHash('sha256').update(Buffer.from(await bytes.arrayBuffer())).digest('hex');
    if (bytes.status !== 200 || digest !== file.digest) lost.push(`file ${file.key}: ${bytes.status}, bytes ${digest === file.digest ? 'equal' : 'differ'}`);
  }
  return { lost, unfinishedRuns };
}

/** Creates the manual flow of the load and answers its id. */
export async function createManualFlow(base: string, siteId: string, token: string): Promise<string> {
  return (await must(base, 'POST', '/flows', { site: siteId, token, body: logFlow('drill manual', 'manual') })).data.id;
}
