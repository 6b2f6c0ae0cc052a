// Who writes each read-model table. Its projection is its one writer (`tables`); beside it, a few
// maintenance writers that no event describes are declared with their reason, on the projection
// (`maintainers`) or, for tables a projection does not list, here. test/projections/
// readModelOwners.unit.spec.ts checks the source against this: a new writer must be declared.
import { projections as allProjections } from './index.ts';
import type { MaintenanceWriter, Projection } from './projection.ts';

export interface TableOwnership {
  table: string;
  /**
   * The one writer of the table's rows: a projection (by name); a reactor (by file) for its own state;
   * or, for state no event describes (the log itself, credentials, counters, scratch space), the
   * store's one module (by file), with `why` it is not derived from the log.
   */
  owner: { projection: string } | { reactor: string } | { store: string; why: string };
  /** How the owner writes it when not by statements of its own. */
  through?: string;
  maintainers: readonly MaintenanceWriter[];
}

/** Tables no projection lists in `tables`, with their owner. */
const TABLES_BESIDE_PROJECTIONS: readonly TableOwnership[] = [
  {
    table: 'events',
    owner: { store: 'infra/eventstore/eventStore.ts', why: 'the log itself: appended through svc_append and svc_append_first_events, never updated' },
    maintainers: [
      {
        table: 'events',
        writer: 'scripts/bench/eventstore.ts (seeding)',
        why: 'the event-store benchmark seeds a large log straight into the table before it measures appends.',
      },
      {
        table: 'events',
        writer: 'scripts/bench/feed.ts (seeding)',
        why: 'the change-feed benchmark seeds a large log straight into the table before it measures the feed.',
      },
      {
        table: 'events',
        writer: 'scripts/bench/support/insightsReports.ts (seeding)',
        why: 'the compliance-report benchmark seeds a million chained events of one site before it measures a report over them.',
      },
    ],
  },
  {
    table: 'projection_checkpoints',
    owner: { store: 'src/runtime/projectionRunner.ts', why: "each projection's position in the log, advanced in the transaction that applies its events" },
    maintainers: [
      {
        table: 'projection_checkpoints',
        writer: 'scripts/bench/support/readiness.ts (moveAsyncCheckpoints)',
        why: 'the items and sites benchmarks seed a million items in-process, then move the async checkpoints past their own events so the service does not replay the seed.',
      },
    ],
  },
  {
    table: 'job_queue',
    owner: { store: 'infra/queue/postgresJobQueue.ts', why: 'jobs waiting to run (the queue without Redis): work to do, not history' },
    maintainers: [],
  },
  {
    table: 'cdc_feed_converted',
    owner: { store: 'infra/postgres/migrations/0305_change_feed_references_log.sql', why: 'a marker of a one-time conversion of stored feed entries, written by that migration only' },
    maintainers: [],
  },
  {
    table: 'api_key_usage',
    owner: { store: 'src/auth/apiKeyAuthenticator.ts', why: "when each key was last used: a counter per request, which as events would grow the log on every read" },
    maintainers: [],
  },
  {
    table: 'realtime_tickets',
    owner: { store: 'src/modules/realtime/tickets.ts', why: 'one-minute single-use credentials, stored as hashes: credentials are not business history' },
    maintainers: [
      {
        table: 'realtime_tickets',
        writer: 'src/modules/cdc/retention.ts (pruneSiteChangeFeed)',
        why: 'retention: expired tickets are removed with the feed entries past retention.',
      },
    ],
  },
  ...['pageview_daily', 'pageview_uniques', 'pageview_flushes'].map(
    (table): TableOwnership => ({
      table,
      owner: { store: 'src/modules/pageviews/pageviewCounts.ts', why: 'anonymous page hit counts, flushed from memory or Redis: a hit is a counter, never an event (docs/delivery.md)' },
      maintainers: [],
    }),
  ),
  {
    table: 'sensitive_values',
    owner: { store: 'src/modules/encryption/sealedValues.ts', why: 'sealed pii/phi values beside the log, which holds only references to them, so that an erasure can destroy them (docs/privacy.md)' },
    maintainers: [
      {
        table: 'sensitive_values',
        writer: 'src/modules/encryption/keyAdmin.ts (rewrap)',
        why: 'a rewrap seals the same values under the current key; the references in the log stay as they are.',
      },
      {
        table: 'sensitive_values',
        writer: 'src/modules/erasure/erasureHandlers.ts (eraseRecords)',
        why: 'an executed erasure destroys the sealed values of the erased records (crypto-shredding), in its own transaction.',
      },
    ],
  },
  ...['log_checkpoints', 'log_checkpoint_heads', 'log_checkpoint_streams', 'log_checkpoint_cursor'].map(
    (table): TableOwnership => ({
      table,
      owner: { store: 'src/modules/audit/checkpointTask.ts', why: 'signed checkpoints of the log and the running heads they are computed from: a seal over the log, not a fact in it (docs/verifiable-history.md)' },
      maintainers: [],
    }),
  ),
  {
    table: 'sign_in_failure_windows',
    owner: { store: 'src/modules/auth/failedSignIns.ts', why: "failed sign-ins past a window's event budget, counted until the window closes and becomes one event (docs/security.md)" },
    maintainers: [],
  },
  {
    table: 'item_count_deltas',
    owner: { projection: 'items' },
    through: 'the triggers on `items` (migration 0104): one row per statement and key, so a rebuild of `items` counts down, then up',
    maintainers: [
      {
        table: 'item_count_deltas',
        writer: 'src/modules/items/itemCounts.ts (compactItemCounts, by svc_compact_item_counts)',
        why: "the scheduler folds each key's rows into one so that a total sums few rows; every sum stays as it was.",
      },
    ],
  },
  {
    table: 'flow_trigger_cursor',
    owner: { reactor: 'src/modules/flows/flowTriggerReactor.ts' },
    maintainers: [],
  },
  {
    table: 'agent_push_cursor',
    owner: { reactor: 'src/modules/agents/agentNotifications.ts' },
    maintainers: [],
  },
  {
    table: 'agent_push_deliveries',
    owner: { reactor: 'src/modules/agents/agentNotifications.ts' },
    maintainers: [],
  },
  {
    table: 'cdc_webhook_state',
    owner: { reactor: 'src/modules/cdc/webhookReactor.ts' },
    maintainers: [
      {
        table: 'cdc_webhook_state',
        writer: 'src/modules/cdc/subscriptionHandlers.ts (deleteSubscription)',
        why: "a deleted subscription's delivery state goes with it, in the delete command's transaction.",
      },
    ],
  },
  {
    table: 'cdc_deliveries',
    owner: { reactor: 'src/modules/cdc/webhookReactor.ts' },
    maintainers: [
      {
        table: 'cdc_deliveries',
        writer: 'src/modules/cdc/subscriptionHandlers.ts (deleteSubscription)',
        why: "a deleted subscription's delivery attempts go with it, in the delete command's transaction.",
      },
      {
        table: 'cdc_deliveries',
        writer: 'src/modules/cdc/retention.ts (pruneSiteChangeFeed)',
        why: 'retention: attempts older than SVC_CDC_RETENTION are removed with the feed entries of that age.',
      },
    ],
  },
  {
    table: 'cdc_sink_state',
    owner: { reactor: 'src/modules/cdc/sinkReactor.ts' },
    maintainers: [
      {
        table: 'cdc_sink_state',
        writer: 'src/modules/cdc/subscriptionHandlers.ts (deleteSubscription)',
        why: "a deleted subscription's sink state goes with it, in the delete command's transaction.",
      },
    ],
  },
  ...['git_pull_requests', 'git_ci_logs'].map(
    (table): TableOwnership => ({
      table,
      owner: { store: 'src/modules/git/hostCache.ts', why: "a cache of the hosting provider's answers (pull requests, CI logs): the provider is their truth, refetched on demand" },
      maintainers: [],
    }),
  ),
  {
    table: 'git_delivery_claims',
    owner: { store: 'src/modules/git/deliveryClaims.ts', why: 'a webhook delivery being handled, so that one of concurrent copies acts: scratch state, gone once the delivery is recorded' },
    maintainers: [],
  },
  {
    table: 'git_oauth_states',
    owner: { store: 'src/modules/git/oauth.ts', why: 'single-use OAuth states: a secret handed to the browser, consumed by the callback, never history' },
    maintainers: [],
  },
  ...['cloud_sync_state', 'cloud_sync_log'].map(
    (table): TableOwnership => ({
      table,
      owner: { reactor: 'src/modules/cloudSync/syncState.ts' },
      maintainers: [],
    }),
  ),
];

/** Every read-model table with its owner and maintainers; throws when a table would have two owners. */
export function tableOwners(projections: readonly Projection[] = allProjections): TableOwnership[] {
  const owners = new Map<string, TableOwnership>();
  const claim = (ownership: TableOwnership) => {
    const other = owners.get(ownership.table);
    if (other) throw new Error(`Table ${ownership.table} has two owners: ${JSON.stringify(other.owner)} and ${JSON.stringify(ownership.owner)}`);
    owners.set(ownership.table, ownership);
  };
  for (const projection of projections) {
    for (const maintainer of projection.maintainers ?? []) {
      if (!projection.tables.includes(maintainer.table)) {
        throw new Error(`Projection ${projection.name} declares a maintainer of ${maintainer.table}, which is not one of its tables`);
      }
    }
    for (const table of projection.tables) {
      claim({ table, owner: { projection: projection.name }, maintainers: (projection.maintainers ?? []).filter((maintainer) => maintainer.table === table) });
    }
  }
  for (const ownership of TABLES_BESIDE_PROJECTIONS) claim(ownership);
  return [...owners.values()];
}
