// Probes of what one instance's write must change on every instance, and how fast: a schema change
// (the content schema cache), a permission change (the grants cache), a content change seen by
// public delivery (the response cache). Each probe first reads on every instance (so each caches
// the old answer), makes the change through one instance, then polls every instance until it answers
// the new way, and gives the slowest instance's milliseconds from the change's acknowledgement (null
// when an instance never did within the timeout). And one probe of a rate limit shared by instances.
import { randomBytes } from 'node:crypto';
import { call, must } from './http.ts';
import type { DrillSite } from './drillSite.ts';
import { DRILL_PASSWORD } from './drillSite.ts';
import { waitFor } from './figures.ts';
import type { Target } from './itemLoad.ts';
import { DRILL_INSTANCE_TOKEN } from './serviceInstance.ts';

const PROPAGATION_TIMEOUT_MS = 5_000;

export interface Propagation {
  /** The slowest instance's milliseconds, or null when one never saw the change. */
  ms: number | null;
  /** Instances whose answer before the change was not the old one (the probe proves nothing there). */
  notWarmed: string[];
}

async function propagate(targets: readonly Target[], before: (target: Target) => Promise<boolean>, change: () => Promise<void>, after: (target: Target) => Promise<boolean>): Promise<Propagation> {
  const notWarmed: string[] = [];
  for (const target of targets) {
    // Twice: the first answer may be built, the second comes from the cache.
    await before(target);
    if (!(await before(target))) notWarmed.push(target.name);
  }
  await change();
  const times = await Promise.all(targets.map((target) => waitFor(() => after(target), PROPAGATION_TIMEOUT_MS, 20)));
  return { ms: times.some((ms) => ms === null) ? null : Math.max(...(times as number[])), notWarmed };
}

/** A new field of `collection`: item reads naming it are refused (400) until the schema cache knows it. */
export function probeSchemaChange(targets: readonly Target[], via: Target, site: DrillSite, collection: string): Promise<Propagation> {
  const field = `extra_${randomBytes(3).toString('hex')}`;
  const readsField = async (target: Target) =>
    (await call(target.base, 'GET', `/items/${collection}?fields=id,${field}&limit=1`, { site: site.siteId, token: site.adminToken })).status === 200;
  return propagate(
    targets,
    async (target) => !(await readsField(target)),
    async () => void (await must(via.base, 'POST', `/fields/${collection}`, { site: site.siteId, token: site.adminToken, body: { field, type: 'string' } })),
    readsField,
  );
}

/**
 * A policy granting read of `collection` attached to the viewer's role through `via` (every instance
 * must then answer 200), then detached through `back` (every instance must answer 403 again).
 */
export async function probePermissionChange(
  targets: readonly Target[],
  via: Target,
  back: Target,
  site: DrillSite,
  viewer: { token: string; roleId: string },
  policyId: string,
  collection: string,
): Promise<{ grant: Propagation; revoke: Propagation }> {
  const status = async (target: Target) => (await call(target.base, 'GET', `/items/${collection}?limit=1`, { site: site.siteId, token: viewer.token })).status;
  const admin = (target: Target, action: string) =>
    must(target.base, 'POST', `/policies/${policyId}/${action}`, { site: site.siteId, token: site.adminToken, body: { roleId: viewer.roleId } });
  const grant = await propagate(targets, async (target) => (await status(target)) === 403, async () => void (await admin(via, 'attach')), async (target) => (await status(target)) === 200);
  const revoke = await propagate(targets, async (target) => (await status(target)) === 200, async () => void (await admin(back, 'detach')), async (target) => (await status(target)) === 403);
  return { grant, revoke };
}

/** A public list of one item, cached on every instance, then the item's title changed through `via`. */
export function probeDeliveryChange(targets: readonly Target[], via: Target, site: DrillSite, collection: string, itemId: string): Promise<Propagation> {
  const title = `changed ${randomBytes(3).toString('hex')}`;
  const path = `/deliver/items/${collection}?filter[id][_eq]=${itemId}&fields=id,title`;
  const titleOf = async (target: Target) => {
    const answer = await call(target.base, 'GET', path, { site: site.siteId });
    return answer.status === 200 ? (answer.body.data[0]?.title as string | undefined) : undefined;
  };
  return propagate(
    targets,
    async (target) => (await titleOf(target)) !== undefined,
    async () => void (await must(via.base, 'PATCH', `/items/${collection}/${itemId}`, { site: site.siteId, token: site.adminToken, body: { title } })),
    async (target) => (await titleOf(target)) === title,
  );
}

export interface SharedLimit {
  attempts: number;
  accepted: number;
  limited: number;
  other: number;
}

/**
 * Sign-ins to a fresh site, spread over every instance in turn: the auth scope counts per client IP
 * and site, so with counters shared in Redis exactly `limit` of them pass, whatever the instance.
 */
export async function probeSharedSignInLimit(targets: readonly Target[], attempts: number): Promise<SharedLimit> {
  const siteId = `rl-${randomBytes(4).toString('hex')}`;
  const email = `admin@${siteId}.drill`;
  await must(targets[0]!.base, 'POST', '/instance/sites', { token: DRILL_INSTANCE_TOKEN, body: { id: siteId, adminEmail: email, adminPassword: DRILL_PASSWORD } });
  const result: SharedLimit = { attempts, accepted: 0, limited: 0, other: 0 };
  // Four at a time (each accepted one costs a password hash): the counter is one atomic INCR, so the order does not matter.
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let attempt = next++; attempt < attempts; attempt = next++) {
        const target = targets[attempt % targets.length]!;
        const answer = await call(target.base, 'POST', '/auth/login', { site: siteId, body: { email, password: DRILL_PASSWORD } });
        if (answer.status === 200) result.accepted += 1;
        else if (answer.status === 429) result.limited += 1;
        else result.other += 1;
      }
    }),
  );
  return result;
}
