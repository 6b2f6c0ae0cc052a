// The parts of the application context that in-process bench steps need (item creates and reads
// without the HTTP server), built from the same factories as src/boot/boot.ts, over a given pool and
// set of read models.
import { parseKeyRing } from '../../../infra/crypto/keyRing.ts';
import pino from 'pino';
import { createLogNotifier } from '../../../infra/eventstore/logNotifier.ts';
import type { Database } from '../../../infra/postgres/database.ts';
import type { Projection } from '../../../projections/projection.ts';
import { accessFor, type Access } from '../../../src/access/access.ts';
import { createGrantsCache } from '../../../src/access/grantsCache.ts';
import type { AppContext } from '../../../src/runtime/context.ts';
import { createItemHooks } from '../../../src/runtime/itemHooks.ts';
import { createStreamStarts } from '../../../src/runtime/streamStarts.ts';
import { createStreamHeads } from '../../../src/runtime/streamHeads.ts';
import { createSchemaCache } from '../../../src/schema/schemaCache.ts';

export type InProcessContext = Pick<AppContext, 'database' | 'projections' | 'schemas' | 'grants' | 'streamStarts' | 'streamHeads' | 'itemHooks' | 'logger' | 'keyRing'>;

export async function createInProcessContext(database: Database, projections: readonly Projection[]): Promise<{ context: InProcessContext; close(): Promise<void> }> {
  const notifier = await createLogNotifier(() => database.connect());
  const context: InProcessContext = {
    database,
    projections,
    schemas: createSchemaCache({ database, notifier }),
    grants: createGrantsCache({ database, notifier }),
    streamStarts: createStreamStarts({ database, projections }),
    streamHeads: createStreamHeads(),
    // No area registers a hook on creates: the seed pays what the service's creates pay.
    itemHooks: createItemHooks(pino({ level: 'silent' })),
    logger: pino({ level: 'silent' }),
    // Benchmarks seal sensitive values with a key derived from a fixed secret.
    keyRing: parseKeyRing(undefined, 'svc-benchmark-secret-svc-benchmark-secret'),
  };
  return {
    context,
    async close() {
      context.schemas.close();
      context.grants.close();
      await notifier.close();
    },
  };
}

/** What the instance token may do: everything (the seed writes as the deployment, not as a user). */
export function instanceAccess(context: InProcessContext, siteId: string): Promise<Access> {
  return accessFor(context, siteId, { kind: 'instance' });
}
