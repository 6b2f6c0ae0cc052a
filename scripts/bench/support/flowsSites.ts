// The flows bench's sites and flows (scripts/bench/flows.ts): sites created through the instance API,
// their administrators read back from the users read model, flows created through the command
// registry as those administrators (as POST /flows runs it), and the wait for runs to start and
// finish, read from the flow_runs read model.
import type pg from 'pg';
import type { Principal } from '../../../src/auth/principal.ts';
import type { CommandRegistry, CommandRunOptions } from '../../../src/runtime/commandRegistry.ts';
import { BENCH_INSTANCE_TOKEN } from './benchService.ts';

const ADMIN_PASSWORD = 'bench password 0123456789';
const WAIT_POLL_MS = 500;

/** Runs `work(0 … count-1)`, `concurrency` at a time; answers the milliseconds it took. */
export async function inParallel(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return performance.now() - started;
}

/** A site and its administrator through POST /instance/sites (no sign-in: the registry takes the principal). */
export async function createSite(base: string, siteId: string): Promise<void> {
  const response = await fetch(`${base}/instance/sites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_INSTANCE_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: siteId, adminEmail: `admin@${siteId}.bench`, adminPassword: ADMIN_PASSWORD }),
  });
  if (response.status !== 201) throw new Error(`site ${siteId} was not created: ${response.status} ${await response.text()}`);
}

export interface SiteAdmin {
  siteId: string;
  userId: string;
  principal: Principal;
}

/** Each site's administrator (the user of its admin role), as a signed-in person's principal. */
export async function siteAdmins(owner: pg.Client, siteIds: string[]): Promise<Map<string, SiteAdmin>> {
  const { rows } = await owner.query<{ site_id: string; id: string; role_id: string }>(
    `SELECT u.site_id, u.id, u.role_id FROM users u JOIN roles r ON r.site_id = u.site_id AND r.id = u.role_id
      WHERE u.site_id = ANY($1::text[]) AND r.admin ORDER BY u.created_at`,
    [siteIds],
  );
  const admins = new Map<string, SiteAdmin>();
  for (const row of rows) {
    if (admins.has(row.site_id)) continue;
    const principal: Principal = { kind: 'user', userId: row.id, roleId: row.role_id, admin: true, sessionId: null, via: 'session', realm: 'studio' };
    admins.set(row.site_id, { siteId: row.site_id, userId: row.id, principal });
  }
  const missing = siteIds.filter((siteId) => !admins.has(siteId));
  if (missing.length > 0) throw new Error(`no administrator found for ${missing.join(', ')}`);
  return admins;
}

export const asAdmin = (admin: SiteAdmin, requestId: string): CommandRunOptions => ({
  siteId: admin.siteId,
  principal: admin.principal,
  metadata: { actor: { kind: 'user', id: admin.userId }, requestId },
});

export interface FlowBody {
  name: string;
  status: 'active';
  trigger: 'event' | 'schedule';
  triggerOptions: Record<string, unknown>;
  graph: { nodes: { id: string; operation: string; options: Record<string, unknown> }[]; edges: never[] };
}

/** `flows.create` as POST /flows runs it; answers the new flow's id and next run. */
export async function createFlow(commands: CommandRegistry, admin: SiteAdmin, body: FlowBody, requestId: string): Promise<{ id: string; nextRunAt: string | null }> {
  return commands.run<{ id: string; nextRunAt: string | null }>('flows.create', body, asAdmin(admin, requestId));
}

export interface RunCounts {
  /** Runs of those flows in the run history, queued or further. */
  queued: number;
  started: number;
  finished: number;
  failed: number;
}

export async function runCounts(owner: pg.Client, flowIds: string[]): Promise<RunCounts> {
  const { rows } = await owner.query<{ queued: string; started: string; finished: string; failed: string }>(
    `SELECT count(*) AS queued, count(executing_at) AS started, count(finished_at) AS finished, count(*) FILTER (WHERE status = 'failed') AS failed
       FROM flow_runs WHERE flow_id = ANY($1::uuid[])`,
    [flowIds],
  );
  const row = rows[0]!;
  return { queued: Number(row.queued), started: Number(row.started), finished: Number(row.finished), failed: Number(row.failed) };
}

export interface RunWait {
  counts: RunCounts;
  /** Whether `until` held before the deadline (false: it timed out, or nothing moved for `stallMs`). */
  reached: boolean;
  ms: number;
}

/**
 * Polls the runs of `flowIds` until `until(counts)` holds, the deadline passes, or no run started or
 * finished for `stallMs`; `onPoll` sees every poll (a progress line).
 */
export async function waitForRuns(
  owner: pg.Client,
  flowIds: string[],
  until: (counts: RunCounts) => boolean,
  limits: { deadlineMs: number; stallMs: number },
  onPoll: (counts: RunCounts, elapsedMs: number) => void = () => {},
): Promise<RunWait> {
  const started = performance.now();
  let moved = { at: started, started: -1, finished: -1 };
  for (;;) {
    const counts = await runCounts(owner, flowIds);
    const now = performance.now();
    onPoll(counts, now - started);
    if (until(counts)) return { counts, reached: true, ms: Math.round(now - started) };
    if (counts.started !== moved.started || counts.finished !== moved.finished) moved = { at: now, started: counts.started, finished: counts.finished };
    if (now - started > limits.deadlineMs || now - moved.at > limits.stallMs) return { counts, reached: false, ms: Math.round(now - started) };
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}
