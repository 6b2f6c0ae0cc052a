// A command's step (CommandRequest.step): the declared place where a command writes other streams
// (a release's items, an erasure's records). It runs after `check`, in the command's transaction,
// hands its typed result to the command and to the answer, and a failure anywhere rolls back all.
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { inject } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { streamId, type Decider } from '../../domain/shared/events.ts';
import { readStream } from '../../infra/eventstore/eventStore.ts';
import { createDatabase, type Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { handleCommand, handleCommandIn, type CommandContext } from '../../src/runtime/commandHandler.ts';
import { uniqueSiteId } from '../support/testService.ts';

const database = createDatabase({ connectionString: inject('databaseUrl'), poolSize: 2 });
afterAll(() => database.close());
const context: CommandContext = { database, projections: [] };
const metadata = { actor: { kind: 'system' as const, id: 'command-step-test' } };

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
  const siteId = uniqueSiteId('step');
  return { siteId, main: streamId(siteId, 'grants', 'main'), other: streamId(siteId, 'grants', 'other') };
}

describe('a command step', () => {
  it('runs after check with the loaded state, in the command’s transaction, and hands its typed result to the command and the answer', async () => {
    const { siteId, main, other } = streams();
    await handleCommand(context, { siteId, streamId: main, decider: grants, command: { type: 'grant', collections: ['first'] }, metadata });
    const calls: string[] = [];
    const transactions = new Set<string>();

    const result = await handleCommand(context, {
      siteId,
      streamId: main,
      decider: grants,
      lock: true,
      check: async (state, tx) => {
        calls.push(`check ${state.join(',')}`);
        transactions.add(await currentTransaction(tx));
      },
      step: {
        name: 'grantElsewhere',
        run: async (state, tx) => {
          calls.push(`step ${state.join(',')}`);
          transactions.add(await currentTransaction(tx));
          const written = await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a', 'b'] }, metadata });
          return { granted: written.state, version: written.version };
        },
      },
      command: (state, elsewhere) => {
        calls.push(`command ${elsewhere.granted.join(',')}`);
        return { type: 'grant', collections: [`after-${state.length}-${elsewhere.version}`] };
      },
      metadata,
    });

    expectTypeOf(result.stepResult).toEqualTypeOf<{ granted: string[]; version: number }>();
    expect(calls).toEqual(['check first', 'step first', 'command a,b']);
    expect(result.stepResult).toEqual({ granted: ['a', 'b'], version: 2 });
    expect(result.state).toEqual(['first', 'after-1-2']);
    expect(transactions.size).toBe(1);
    const committedIn = await database.withSiteReads(siteId, async (tx) => [...(await readStream(tx, main)).slice(1), ...(await readStream(tx, other))].map((event) => event.txId));
    expect(new Set(committedIn)).toEqual(transactions);
  });

  it('rolls back what the step wrote, and appends nothing, when the step fails', async () => {
    const { siteId, main, other } = streams();
    const attempt = handleCommand(context, {
      siteId,
      streamId: main,
      decider: grants,
      step: {
        name: 'grantThenFail',
        run: async (_state, tx) => {
          await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a'] }, metadata });
          throw new AppError('CONFLICT', 'The step refuses');
        },
      },
      command: { type: 'grant', collections: ['never'] },
      metadata,
    });

    await expect(attempt).rejects.toMatchObject({ code: 'CONFLICT', message: 'The step refuses' });
    expect(await collectionsOf(siteId, other)).toEqual([]);
    expect(await collectionsOf(siteId, main)).toEqual([]);
  });

  it('rolls back what the step wrote when the decider refuses the command after it', async () => {
    const { siteId, main, other } = streams();
    const attempt = handleCommand(context, {
      siteId,
      streamId: main,
      decider: grants,
      step: {
        name: 'grantElsewhere',
        run: async (_state, tx) => (await handleCommandIn(tx, [], { siteId, streamId: other, decider: grants, command: { type: 'grant', collections: ['a'] }, metadata })).state,
      },
      command: (): GrantCommand => ({ type: 'grant', collections: [] }),
      metadata,
    });

    await expect(attempt).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await collectionsOf(siteId, other)).toEqual([]);
  });

  it('does not run when check refuses', async () => {
    const { siteId, main } = streams();
    let ran = false;
    const attempt = handleCommand(context, {
      siteId,
      streamId: main,
      decider: grants,
      check: () => Promise.reject(new AppError('NOT_FOUND', 'Nothing to act on')),
      step: {
        name: 'mustNotRun',
        run: async () => {
          ran = true;
        },
      },
      command: { type: 'grant', collections: ['never'] },
      metadata,
    });

    await expect(attempt).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(ran).toBe(false);
  });

  it('leaves a command without a step as it was: the command builder and the answer see no step result', async () => {
    const { siteId, main } = streams();
    const result = await handleCommand(context, {
      siteId,
      streamId: main,
      decider: grants,
      command: (state, stepResult) => ({ type: 'grant', collections: [`${state.length}-${String(stepResult)}`] }),
      metadata,
    });

    expectTypeOf(result.stepResult).toEqualTypeOf<undefined>();
    expect(result.stepResult).toBeUndefined();
    expect(result.state).toEqual(['0-undefined']);
  });
});
