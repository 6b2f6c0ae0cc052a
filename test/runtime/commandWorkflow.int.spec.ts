// A command's workflow (openCommandIn, then decide): where a command writes other streams first (a
// release's items, an erasure's records). The command is opened under its lock and checked; the
// workflow writes other streams in the same transaction; the command is decided with what it did; a
// failure anywhere rolls back all.
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { streamId, type Decider } from '../../domain/shared/events.ts';
import { readStream } from '../../infra/eventstore/eventStore.ts';
import { createDatabase, type Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { handleCommand, handleCommandIn, inSiteTransaction, openCommandIn, type CommandContext } from '../../src/runtime/commandHandler.ts';
import { uniqueSiteId } from '../support/testService.ts';

const database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2 });
afterAll(() => database.close());
const context: CommandContext = { database, projections: [] };
const metadata = { actor: { kind: 'system' as const, id: 'command-workflow-test' } };

/**
 * A stream of grants, one event per collection named. Other files' services read the whole shared
 * log, so the events are of a type the catalogue knows.
 */
interface GrantCommand {
  type: 'grant';
  collections: string[];
}
type Grant = { type: 'subscriber_access.granted'; data: { collection: string } };
const grants: Decider<string[], GrantCommand, Grant> = {
  eventTypes: ['subscriber_access.granted'],
  initialState: () => [],
  evolve: (state, event) => [...state, event.data.collection],
  decide: (command) => {
    if (command.collections.length === 0) throw new AppError('VALIDATION_FAILED', 'Nothing to grant');
    return command.collections.map((collection) => ({ type: 'subscriber_access.granted', data: { collection } }));
  },
};

/** The transaction's id, as the log records it in `tx_id`. */
const currentTransaction = async (tx: Queryable) => (await tx.query<{ id: string }>(sql`SELECT pg_current_xact_id()::text AS id`))[0]!.id;

async function collectionsOf(siteId: string, stream: string): Promise<string[]> {
  return database.withSiteReads(siteId, async (tx) => (await readStream(tx, stream)).map((event) => (event.data as { collection: string }).collection));
}

function streams() {
  const siteId = uniqueSiteId('workflow');
  return { siteId, main: streamId(siteId, 'grants', 'main'), other: streamId(siteId, 'grants', 'other') };
}

describe('a command workflow', () => {
  it('opens the command after check with the loaded state, writes other streams in its transaction, then decides with what they did', async () => {
    const { siteId, main, other } = streams();
    await handleCommand(context, { siteId, streamId: main, decider: grants, command: { type: 'grant', collections: ['first'] }, metadata });
    const calls: string[] = [];
    const transactions = new Set<string>();

    const result = await inSiteTransaction(context, siteId, async (tx) => {
      const opened = await openCommandIn(tx, [], {
        siteId,
        streamId: main,
        decider: grants,
        lock: true,
        check: async (state, checkTx) => {
          calls.push(`check ${state.join(',')}`);
          transactions.add(await currentTransaction(checkTx));
        },
        metadata,
      });
      calls.push(`workflow ${opened.state.join(',')}`);
      transactions.add(await currentTransaction(tx));
      const written = await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a', 'b'] }, metadata });
      calls.push(`decide ${written.state.join(',')}`);
      return opened.decide({ type: 'grant', collections: [`after-${opened.state.length}-${written.version}`] });
    });

    expect(calls).toEqual(['check first', 'workflow first', 'decide a,b']);
    expect(result.state).toEqual(['first', 'after-1-2']);
    expect(transactions.size).toBe(1);
    const committedIn = await database.withSiteReads(siteId, async (tx) => [...(await readStream(tx, main)).slice(1), ...(await readStream(tx, other))].map((event) => event.txId));
    expect(new Set(committedIn)).toEqual(transactions);
  });

  it('rolls back what the workflow wrote, and appends nothing, when it fails before deciding', async () => {
    const { siteId, main, other } = streams();
    const attempt = inSiteTransaction(context, siteId, async (tx) => {
      await openCommandIn(tx, [], { siteId, streamId: main, decider: grants, metadata });
      await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a'] }, metadata });
      throw new AppError('CONFLICT', 'The workflow refuses');
    });

    await expect(attempt).rejects.toMatchObject({ code: 'CONFLICT', message: 'The workflow refuses' });
    expect(await collectionsOf(siteId, other)).toEqual([]);
    expect(await collectionsOf(siteId, main)).toEqual([]);
  });

  it('rolls back what the workflow wrote when the decider refuses the command after it', async () => {
    const { siteId, main, other } = streams();
    const attempt = inSiteTransaction(context, siteId, async (tx) => {
      const opened = await openCommandIn(tx, [], { siteId, streamId: main, decider: grants, metadata });
      await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a'] }, metadata });
      return opened.decide({ type: 'grant', collections: [] });
    });

    await expect(attempt).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await collectionsOf(siteId, other)).toEqual([]);
  });

  it('refuses before the workflow writes anything when check refuses', async () => {
    const { siteId, main } = streams();
    let wrote = false;
    const attempt = inSiteTransaction(context, siteId, async (tx) => {
      await openCommandIn(tx, [], { siteId, streamId: main, decider: grants, check: () => Promise.reject(new AppError('NOT_FOUND', 'Nothing to act on')), metadata });
      wrote = true;
    });

    await expect(attempt).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(wrote).toBe(false);
  });

  it('decides an opened command once', async () => {
    const { siteId, main } = streams();
    const attempt = inSiteTransaction(context, siteId, async (tx) => {
      const opened = await openCommandIn(tx, [], { siteId, streamId: main, decider: grants, metadata });
      await opened.decide({ type: 'grant', collections: ['once'] });
      return opened.decide({ type: 'grant', collections: ['twice'] });
    });

    await expect(attempt).rejects.toThrow(/decided once/);
    expect(await collectionsOf(siteId, main)).toEqual([]);
  });
});
