// The reactor that starts event flows (docs/flows.md "Triggers"): it follows the log (the gap-safe read
// every projector uses) from its cursor, under one leader lock across instances; for each item write,
// the site's active event flows that listen to its collection and action get a run, whose id is
// derived from the event and the flow, so a batch read twice (a crash before the cursor moved) queues
// nothing twice. A batch's runs of a site share transactions (the group commit of stream starts). The
// cursor moves after the runs commit; their jobs are queued after that.
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from '../../../domain/shared/events.ts';
import type { FlowAction, TriggerOptions } from '../../../domain/flows/events.ts';
import { cursorOf, readAll, readLogHead, type GlobalCursor } from '../../../infra/eventstore/eventStore.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { createLeaderSession } from '../../runtime/leaderElection.ts';
import type { AppContext } from '../../runtime/context.ts';
import { runDepths } from './queries.ts';
import { derivedRunId, queueRunsJointly, RUN_CAUSATION_PREFIX } from './runs.ts';

const LEADER_LOCK = 'flow-trigger';
const BATCH = 500;
/** How often the reactor looks for event flows while there is none (a new one reacts within this). */
const IDLE_MS = 1_000;
const IDLE = 'idle' as const;
const ACTIONS: Record<string, FlowAction> = { 'item.created': 'create', 'item.updated': 'update', 'item.deleted': 'delete' };
const REACTOR_METADATA = { actor: { kind: 'system' as const, id: 'flows' } };

export interface FlowTriggerReactor {
  stop(): Promise<void>;
}

interface EventFlow {
  site_id: string;
  id: string;
  trigger_options: TriggerOptions;
}

function listens(flow: EventFlow, collection: string, action: FlowAction): boolean {
  const options = flow.trigger_options;
  if (options.collection !== undefined && options.collection !== collection) return false;
  if (options.action === undefined) return true;
  return Array.isArray(options.action) ? options.action.includes(action) : options.action === action;
}

/** The run an item event's metadata names as its cause, if a flow run made the write. */
function causingRun(event: StoredEvent): string | null {
  const causation = event.metadata.causationId;
  return causation?.startsWith(RUN_CAUSATION_PREFIX) ? causation.slice(RUN_CAUSATION_PREFIX.length) : null;
}

function inputOf(event: StoredEvent, action: FlowAction): Record<string, unknown> {
  const data = event.data as { collection: string; itemId: string; snapshot: unknown; delta: unknown };
  return {
    event: action,
    collection: data.collection,
    itemId: data.itemId,
    item: data.snapshot,
    changes: data.delta,
    eventId: event.eventId,
    occurredAt: event.recordedAt.toISOString(),
  };
}

export function startFlowTriggerReactor(options: {
  context: AppContext;
  maxChain: number;
  pollMs: number;
  enqueue(siteId: string, runId: string): Promise<void>;
}): FlowTriggerReactor {
  const { context, maxChain } = options;
  const leadership = createLeaderSession({ database: context.database });
  const stopping = new AbortController();

  async function readCursor(): Promise<GlobalCursor> {
    const [row] = await context.database.query<{ tx_id: string; position: number }>(sql`SELECT tx_id::text, position FROM flow_trigger_cursor`);
    if (row) return { txId: row.tx_id, position: Number(row.position) };
    // First start: event flows react from now on, not to the whole history.
    const head = await readLogHead(context.database);
    await context.database.query(sql`INSERT INTO flow_trigger_cursor (tx_id, position) VALUES (${head.txId}::xid8, ${head.position}) ON CONFLICT DO NOTHING`);
    return head;
  }

  /** One batch: the runs it starts, committed per site; then the cursor; then their jobs. Answers how many events it read, or IDLE. */
  async function step(): Promise<number | typeof IDLE> {
    const from = await readCursor();
    // No active event flow anywhere: nothing to start, whatever was written; skip to the head unread.
    // The head is read first: a flow active by the time of the check sees every write after that head.
    const head = await readLogHead(context.database);
    const [any] = await context.database.query<{ any: boolean }>(sql`SELECT svc_flow_any_event_flows() AS any`);
    if (!any?.any) {
      if (head.txId !== from.txId || head.position !== from.position) {
        await context.database.query(sql`UPDATE flow_trigger_cursor SET tx_id = ${head.txId}::xid8, position = ${head.position}`);
      }
      return IDLE;
    }
    const events = await readAll(context.database, from, BATCH);
    if (events.length === 0) return 0;
    const writes = events.filter((event) => ACTIONS[event.type] !== undefined);
    const queued: { siteId: string; runId: string }[] = [];
    if (writes.length > 0) {
      const sites = [...new Set(writes.map((event) => event.siteId))];
      const flows = await context.database.query<EventFlow>(sql`SELECT * FROM svc_flow_event_flows(${sites}::text[])`);
      const depths = await runDepths(context.database, [...new Set(writes.map(causingRun).filter((id): id is string => id !== null))]);
      for (const siteId of sites) {
        const siteFlows = flows.filter((flow) => flow.site_id === siteId);
        if (siteFlows.length === 0) continue;
        const runs = writes
          .filter((event) => event.siteId === siteId)
          .flatMap((event) => {
            const action = ACTIONS[event.type]!;
            const { collection } = event.data as { collection: string };
            const cause = causingRun(event);
            const depth = cause === null ? 0 : (depths.get(cause) ?? 0) + 1;
            if (depth > maxChain) {
              context.logger.warn({ siteId, eventId: event.eventId, causingRun: cause, depth }, 'flow run not started: past SVC_FLOW_MAX_CHAIN (loop guard)');
              return [];
            }
            return siteFlows
              .filter((flow) => listens(flow, collection, action))
              .map((flow) => ({ runId: derivedRunId(`${event.eventId}/${flow.id}`), flowId: flow.id, trigger: 'event' as const, input: inputOf(event, action), depth }));
          });
        if (runs.length === 0) continue;
        for (const runId of await queueRunsJointly(context, siteId, runs, REACTOR_METADATA)) queued.push({ siteId, runId });
      }
    }
    const last = cursorOf(events.at(-1)!);
    await context.database.query(sql`UPDATE flow_trigger_cursor SET tx_id = ${last.txId}::xid8, position = ${last.position}`);
    // The runs and the cursor are committed: a job that still cannot be given (not an outage, which
    // owes it) is left to the flows dispatcher, which queues runs waiting without one.
    await Promise.all(
      queued.map((run) =>
        options.enqueue(run.siteId, run.runId).catch((error: unknown) => context.logger.error({ err: error, ...run }, 'flow run not enqueued; the dispatcher will')),
      ),
    );
    return events.length;
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let idle = false;
      try {
        if (await leadership.lead(LEADER_LOCK)) {
          const read = await step();
          if (read === BATCH) continue;
          idle = read === IDLE;
        }
      } catch (error) {
        context.logger.error({ err: error }, 'flow trigger reactor step failed; retrying');
      }
      // Without event flows it looks again after IDLE_MS, not at every commit: a busy log costs it nothing.
      if (idle) await sleep(IDLE_MS, undefined, { signal: stopping.signal }).catch(() => undefined);
      else await context.notifier.next('svc_events', options.pollMs, stopping.signal).catch(() => undefined);
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await loop;
      await leadership.resign();
    },
  };
}
