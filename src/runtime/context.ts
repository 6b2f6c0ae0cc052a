// Everything a request, a command or a background part needs, built once at start.
import type { Logger } from 'pino';
import type { KeyRing } from '../../infra/crypto/keyRing.ts';
import type { SigningKey } from '../../infra/crypto/signing.ts';
import type { LogNotifier } from '../../infra/eventstore/logNotifier.ts';
import type { Metrics } from '../../infra/metrics/metrics.ts';
import type { Database } from '../../infra/postgres/database.ts';
import type { Projection } from '../../projections/projection.ts';
import type { GrantsCache } from '../access/grantsCache.ts';
import type { IdentityServices } from '../auth/identityServices.ts';
import type { Config } from '../config/config.ts';
import type { SchemaCache } from '../schema/schemaCache.ts';
import type { FieldIndexBuilder } from './fieldIndexBuilder.ts';
import type { CommandRegistry } from './commandRegistry.ts';
import type { ItemHooks } from './itemHooks.ts';
import type { ProjectionDaemon } from './projectionDaemon.ts';
import type { StreamStarts } from './streamStarts.ts';
import type { StreamHeads } from './streamHeads.ts';

export interface AppContext {
  config: Config;
  database: Database;
  notifier: LogNotifier;
  projections: readonly Projection[];
  /** Each site's schema, cached on this instance and dropped on schema events. */
  schemas: SchemaCache;
  /** Each principal's effective grants, cached on this instance and dropped on access events. */
  grants: GrantsCache;
  /** Mail, emailed links and trusted issuers' key sets, shared by the identity areas. */
  identity: IdentityServices;
  /** The group-commit strategy of the command handler for new streams (creates). */
  streamStarts: StreamStarts;
  /** This instance's cache of the heads of streams loaded by their head (items): ./streamHeads.ts. */
  streamHeads: StreamHeads;
  /** What other areas run on item writes (before-write, after-write, after-commit), registered at boot. */
  itemHooks: ItemHooks;
  /** Every command by name (`items.create`, …): routes and other callers run them through it, built at boot. */
  commands: CommandRegistry;
  daemon: ProjectionDaemon;
  /** Builds and drops the content field indexes the schema asks for (started with the daemon). */
  fieldIndexBuilder: FieldIndexBuilder;
  /** The encryption key ring (SVC_ENCRYPTION_KEYS): keys by id, for sensitive field values. */
  keyRing: KeyRing;
  /** The deployment's Ed25519 signing key (SVC_SIGNING_KEY): log checkpoints, erasure receipts. */
  signingKey: SigningKey;
  /** The Prometheus registry: parts report to it, GET /metrics renders it (SVC_METRICS). */
  metrics: Metrics;
  logger: Logger;
  version: string;
  startedAt: Date;
  /** Runs when the context closes, in reverse order of registration. */
  onClose(hook: () => Promise<void>): void;
  close(): Promise<void>;
}
