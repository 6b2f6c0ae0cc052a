// The sites bench's seed (scripts/bench/sites.ts): the sites, their administrators, `articles`
// collections and items, then a read-only API key on each sampled site, in-process in a context built
// as the service builds it (createContext, no background work). What a site administrator does runs
// through the command registry as the routes run it; the site, its first user and the items are
// written as POST /instance/sites and the items bench's seed write them.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userDecider } from '../../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import { projections } from '../../../projections/index.ts';
import type { Principal } from '../../../src/auth/principal.ts';
import { createContext } from '../../../src/boot/boot.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createSiteIn } from '../../../src/modules/instance/handlers.ts';
import { createItems } from '../../../src/modules/items/createItems.ts';
import { handleCommandIn } from '../../../src/runtime/commandHandler.ts';
import type { CommandRunOptions } from '../../../src/runtime/commandRegistry.ts';
import type { AppContext } from '../../../src/runtime/context.ts';
import { inProcessBenchEnvironment } from './benchService.ts';
import { instanceAccess } from './inProcessContext.ts';
import { round, thousands } from './sitesFormat.ts';

/** Sites seeded at once: enough to keep PostgreSQL busy on two cores, few enough not to queue on the pool. */
export const SEED_CONCURRENCY = 4;
const PROGRESS_EVERY = 1_000;
const STATUSES = ['published', 'published', 'published', 'published', 'published', 'draft', 'draft', 'draft', 'archived', 'archived'];
const PASSWORD = 'bench password 0123456789';
const ARTICLES = {
  name: 'articles',
  fields: [
    { field: 'title', type: 'string' },
    { field: 'views', type: 'integer' },
    { field: 'status', type: 'string' },
  ],
};

/** Seed writes act as the deployment, as the instance API's do. */
const SEED_METADATA: EventMetadata = { actor: { kind: 'system', id: 'bench-seed' } };

/** A sampled site as the seed leaves it: one of its items, and its administrator, who makes its API key. */
export interface SampledSite {
  siteId: string;
  itemId: string;
  administrator: Principal;
}

/** A sampled site as the HTTP scenarios read it: its API key and one of its items. */
export interface Target {
  siteId: string;
  key: string;
  itemId: string;
}

/** The site's first user, signed in as themselves: a site administrator, as the commands of the seed run. */
function siteAdministrator(userId: string, roleId: string): Principal {
  return { kind: 'user', userId, roleId, admin: true, sessionId: null, via: 'session', realm: 'studio' };
}

/** How a command of the seed runs: in the site, as its administrator, with the seed's metadata. */
function asAdministrator(siteId: string, administrator: Principal): CommandRunOptions {
  return { siteId, principal: administrator, metadata: SEED_METADATA };
}

/**
 * `work` on the service's context over `databaseUrl` (production settings, a pool of two connections
 * per site seeded at once), without the projection daemon, the field index builder or the scheduler;
 * closed afterwards. It logs errors only: its boot warnings (no SMTP_URL) are not the bench's lines.
 */
async function withSeedContext<T>(databaseUrl: string, work: (context: AppContext) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-sites-'));
  try {
    const config = loadConfig(inProcessBenchEnvironment(databaseUrl, dataDir, { LOG_LEVEL: 'error', SVC_DB_POOL_SIZE: String(SEED_CONCURRENCY * 2) }));
    const context = await createContext(config, { runProjections: false });
    try {
      return await work(context);
    } finally {
      await context.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs `work` for each of `count` indexes, `concurrency` at a time; the first failure stops the rest. */
async function forEachConcurrently(count: number, concurrency: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < count) {
      const index = next++;
      try {
        await work(index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

function article(site: number, index: number): Record<string, unknown> {
  return {
    title: `Article ${index + 1} of site ${site + 1}`,
    views: (site * 7_919 + index * 104_729) % 100_000,
    status: STATUSES[(site + index) % STATUSES.length],
  };
}

/**
 * Each site as createSite makes it (the site, its administrator and public roles, its first user: one
 * transaction, with one password hash for every user, since argon2 per site would be most of the seed),
 * then its `articles` collection (`schema.createCollection`, as that user) and its items (one
 * createItems). Every inline read model is written, as the service writes them; the async ones are
 * skipped (moveAsyncCheckpoints). Answers the first item and the administrator of each of the first
 * `sampleCount` sites.
 */
export async function seedSites(databaseUrl: string, siteIds: string[], itemCount: number, sampleCount: number) {
  console.log(`seeding ${thousands(siteIds.length)} sites of ${itemCount} articles in-process, ${SEED_CONCURRENCY} sites at a time…`);
  const passwordHash = await hashPassword(PASSWORD);
  const sampled: SampledSite[] = [];
  let done = 0;
  const started = performance.now();
  await withSeedContext(databaseUrl, (context) =>
    forEachConcurrently(siteIds.length, SEED_CONCURRENCY, async (index) => {
      const siteId = siteIds[index]!;
      const userId = randomUUID();
      const roleId = await context.database.withSite(siteId, async (tx) => {
        const adminRoleId = await createSiteIn(context, tx, siteId, siteId, new Date(), SEED_METADATA);
        await handleCommandIn(tx, projections, {
          siteId,
          streamId: streamId(siteId, 'user', userId),
          decider: userDecider,
          command: { type: 'createUser', userId, email: `admin@${siteId}.bench`, passwordHash, roleId: adminRoleId, firstName: 'Admin', lastName: null },
          metadata: SEED_METADATA,
        });
        return adminRoleId;
      });
      const administrator = siteAdministrator(userId, roleId);
      await context.commands.run('schema.createCollection', ARTICLES, asAdministrator(siteId, administrator));
      const items = Array.from({ length: itemCount }, (_, i) => article(index, i));
      const created = await createItems(context, { siteId, collection: 'articles', items, access: await instanceAccess(context, siteId), metadata: SEED_METADATA });
      if (index < sampleCount) sampled[index] = { siteId, itemId: created[0]!.id, administrator };
      done += 1;
      if (done % PROGRESS_EVERY === 0) {
        const seconds = (performance.now() - started) / 1000;
        console.log(`  ${thousands(done)} sites, ${Math.round(done / seconds)} sites/s, ${Math.round((done * itemCount) / seconds)} items/s`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const figures = {
    sites: siteIds.length,
    items: siteIds.length * itemCount,
    seconds: round(seconds),
    sitesPerSecond: round(siteIds.length / seconds),
    itemsPerSecond: Math.round((siteIds.length * itemCount) / seconds),
    concurrency: SEED_CONCURRENCY,
    via: 'createSiteIn + createUser, schema.createCollection (command registry), createItems in-process; inline read models only',
  };
  console.log(`seeded in ${figures.seconds} s: ${figures.sitesPerSecond} sites/s, ${thousands(figures.itemsPerSecond)} items/s`);
  return { figures, sampled };
}

/**
 * A read-only API key for each sampled site, made by its administrator through the command registry:
 * a `Reader` role, a policy that may read `articles`, attached to it, and a key bound to the role. Not
 * the administrator's own: an administrator's requests never consult the grants cache, a delivery
 * key's do. API keys are SHA-256 hashed, so a request costs no argon2.
 */
export async function createCredentials(databaseUrl: string, sampled: SampledSite[]) {
  console.log(`creating a read-only API key on each of ${thousands(sampled.length)} sites…`);
  const targets: Target[] = [];
  const started = performance.now();
  await withSeedContext(databaseUrl, (context) =>
    forEachConcurrently(sampled.length, SEED_CONCURRENCY, async (index) => {
      const { siteId, itemId, administrator } = sampled[index]!;
      const options = asAdministrator(siteId, administrator);
      const role = await context.commands.run<{ id: string }>('roles.create', { name: 'Reader' }, options);
      const policy = await context.commands.run<{ id: string }>('policies.create', { name: 'Read articles' }, options);
      await context.commands.run('policies.addPermission', { id: policy.id, collection: 'articles', action: 'read' }, options);
      await context.commands.run('policies.attach', { id: policy.id, roleId: role.id }, options);
      const key = await context.commands.run<{ key: string }>('apiKeys.create', { name: 'bench reader', roleId: role.id }, options);
      targets[index] = { siteId, key: key.key, itemId };
    }),
  );
  const seconds = round((performance.now() - started) / 1000);
  console.log(`  in ${seconds} s`);
  return {
    targets,
    figures: { sites: sampled.length, seconds, via: 'roles.create, policies.create, policies.addPermission, policies.attach, apiKeys.create (command registry) in-process' },
  };
}
