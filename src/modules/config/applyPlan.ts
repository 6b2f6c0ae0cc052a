// Runs an import plan through the deciders, inside the caller's transaction: each change is the event
// the REST call would append (applySchema as PUT /collections/:name/schema, deleteCollection,
// replaceRelation and deleteRelation, the change-feed subscription commands, the settings command).
// A rehearsal runs the same deciders on the streams' current state without appending anything, so a
// dry-run reports what the apply would refuse.
import { randomUUID } from 'node:crypto';
import { collectionDecider, type CollectionCommand } from '../../../domain/content/collectionDecider.ts';
import { relationDecider, type RelationCommand, type RelationState } from '../../../domain/content/relationDecider.ts';
import type { CollectionWork, ConfigPlan } from '../../../domain/config/configPlan.ts';
import type { ManifestError, Path } from '../../../domain/config/manifest.ts';
import { subscriptionDecider } from '../../../domain/changeFeed/subscription.ts';
import type { RelationDefinition } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { readStream, startedStreams } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createSubscriptionIn, deleteSubscriptionIn, subscriptionStream } from '../cdc/subscriptionHandlers.ts';
import type { SecretBox } from '../cdc/webhookSecrets.ts';
import { collectionStreamId, relationStreamId } from '../schema/handlers.ts';
import { writeSettingsIn } from '../settings/settingsStore.ts';

export interface ApplyTools {
  secrets: SecretBox;
  /** Where each setting of the manifest is, for the settings area's error paths. */
  settingPaths: ReadonlyMap<string, Path>;
  /** The manifest's place in the body. */
  base: Path;
}

function applySchemaCommand(work: CollectionWork): CollectionCommand {
  return { type: 'applySchema', collection: work.name, meta: work.meta, fields: work.fields };
}

/** A decider's error at the manifest entry it is about (deciders speak of `['body', …]` of their own command). */
function collectionError(error: AppError, work: CollectionWork, base: Path): AppError {
  const [, section, index, ...rest] = error.path;
  const field = section === 'fields' && typeof index === 'number' ? work.fieldPaths[index] : null;
  if (field) return error.at([...field, ...rest]);
  return error.at(work.path ? [...work.path, ...(section === 'name' ? ['name'] : [])] : [...base, 'fields']);
}

/** A relation id that existed is reserved by its history (the decider's rule for POST /relations). */
function refuseReservedId(relation: RelationDefinition, path: Path | null, base: Path) {
  return async (state: RelationState) => {
    if (state.lifecycle !== 'deleted') return;
    throw new AppError('CONFLICT', `Relation "${relation.id}" was deleted and its history keeps the id: give the relation another id, or leave id out`, {
      path: path ? [...path, 'id'] : [...base, 'relations'],
    });
  };
}

function asManifestError(error: unknown): ManifestError {
  if (!(error instanceof AppError)) throw error;
  return { code: error.code, message: error.message, path: error.path };
}

/** The errors the deciders would answer, from each stream's current state; nothing is appended. */
export async function rehearsePlan(tx: Queryable, siteId: string, plan: ConfigPlan, base: Path): Promise<ManifestError[]> {
  const errors: ManifestError[] = [];
  const streams = [
    ...plan.work.collections.map((work) => collectionStreamId(siteId, work.name)),
    ...plan.work.relations.map(({ relation }) => relationStreamId(siteId, relation.id)),
  ];
  const started = await startedStreams(tx, streams);
  const history = async (stream: string) => (started.has(stream) ? readStream(tx, stream) : []);
  for (const work of plan.work.collections) {
    const events = await history(collectionStreamId(siteId, work.name));
    const state = events.reduce(collectionDecider.evolve, collectionDecider.initialState());
    try {
      collectionDecider.decide(applySchemaCommand(work), state);
    } catch (error) {
      errors.push(asManifestError(error instanceof AppError ? collectionError(error, work, base) : error));
    }
  }
  for (const { relation, path } of plan.work.relations) {
    const events = await history(relationStreamId(siteId, relation.id));
    const state = events.reduce(relationDecider.evolve, relationDecider.initialState());
    try {
      await refuseReservedId(relation, path, base)(state);
      relationDecider.decide({ type: 'replaceRelation', relation }, state);
    } catch (error) {
      errors.push(asManifestError(error));
    }
  }
  return errors;
}

/** Applies the plan's work in order: relations that go, collections, collections that go, relations, webhooks, settings. */
export async function applyPlanIn(context: AppContext, tx: Queryable, siteId: string, plan: ConfigPlan, tools: ApplyTools, metadata: EventMetadata): Promise<void> {
  const { work } = plan;
  const relationCommand = (relationId: string, command: RelationCommand, check?: (state: RelationState) => Promise<void>) =>
    handleCommandIn(tx, context.projections, { siteId, streamId: relationStreamId(siteId, relationId), decider: relationDecider, command, metadata, check });
  const collectionCommand = (name: string, command: CollectionCommand) =>
    handleCommandIn(tx, context.projections, { siteId, streamId: collectionStreamId(siteId, name), decider: collectionDecider, command, metadata });

  for (const relationId of work.relationDeletes) await relationCommand(relationId, { type: 'deleteRelation', relationId });
  for (const collection of work.collections) {
    try {
      await collectionCommand(collection.name, applySchemaCommand(collection));
    } catch (error) {
      throw error instanceof AppError ? collectionError(error, collection, tools.base) : error;
    }
  }
  for (const name of work.collectionDeletes) await collectionCommand(name, { type: 'deleteCollection', collection: name });
  for (const { relation, path } of work.relations) {
    await relationCommand(relation.id, { type: 'replaceRelation', relation }, refuseReservedId(relation, path, tools.base));
  }

  for (const subscriptionId of work.webhookDeletes) await deleteSubscriptionIn(context, tx, siteId, subscriptionId, metadata);
  for (const update of work.webhookUpdates) {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: subscriptionStream(siteId, update.id),
      decider: subscriptionDecider,
      command: { type: 'update', changes: update.changes },
      metadata,
    });
  }
  for (const webhook of work.webhookCreates) {
    const definition = {
      subscriptionId: randomUUID(),
      name: webhook.name,
      kind: 'webhook' as const,
      url: webhook.url,
      secretCiphertext: tools.secrets.seal(webhook.secret),
      collections: webhook.collections,
      operations: webhook.operations,
    };
    await createSubscriptionIn(context, tx, siteId, definition, { at: 'end' }, metadata);
  }

  if (Object.keys(work.settingsSet).length > 0 || work.settingsRemove.length > 0) {
    const pathOf = (key: string) => tools.settingPaths.get(key) ?? [...tools.base, 'settings'];
    await writeSettingsIn(tx, context, {
      siteId,
      set: work.settingsSet,
      remove: work.settingsRemove,
      metadata,
      path: [...tools.base, 'settings'],
      keyPath: (key) => [...pathOf(key), 'key'],
      valuePath: (key) => [...pathOf(key), 'value'],
    });
  }
}
