// Runs an import plan through the deciders, inside the caller's transaction: each change is the event
// the REST call would append (applySchema as PUT /collections/:name/schema, deleteCollection,
// replaceRelation and deleteRelation, the change-feed subscription commands, the settings command).
// A rehearsal runs the same deciders on the streams' current state without appending anything, so a
// dry-run reports what the apply would refuse.
import { randomUUID } from 'node:crypto';
import { collectionDecider, type CollectionCommand } from '../../../domain/content/collectionDecider.ts';
import { relationDecider, type RelationCommand, type RelationState } from '../../../domain/content/relationDecider.ts';
import type { CollectionWork, ConfigPlan, FieldRename } from '../../../domain/config/configPlan.ts';
import type { ManifestError, Path } from '../../../domain/config/manifest.ts';
import { subscriptionDecider } from '../../../domain/changeFeed/subscription.ts';
import type { RelationDefinition } from '../../../domain/content/schemaModel.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { eventsOf, type EventMetadata } from '../../../domain/shared/events.ts';
import { readStream, startedStreams } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createSubscriptionIn, deleteSubscriptionIn, subscriptionStream } from '../cdc/subscriptionHandlers.ts';
import type { SecretBox } from '../cdc/webhookSecrets.ts';
import { collectionStreamId, relationStreamId } from '../schema/handlers.ts';
import { changeStoredValuesIn } from '../items/changeItem.ts';
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

/** The renames of a collection whose values move: those the plan found values for. */
function movingRenames(plan: ConfigPlan, work: CollectionWork): FieldRename[] {
  const moving = new Set(plan.changes.filter((change) => change.action === 'rename' && (change.moves ?? 0) > 0).map((change) => change.key));
  return work.renames.filter((rename) => moving.has(`${work.name}.${rename.to}`));
}

/**
 * A collection's applySchema commands: one, or when values move, two around the move: the new fields
 * added with the old ones kept, then the old ones removed.
 */
function schemaSteps(work: CollectionWork, renames: readonly FieldRename[]): CollectionWork[] {
  if (renames.length === 0) return [work];
  const keeping = { ...work, fields: [...work.fields, ...renames.map((rename) => rename.before)], fieldPaths: [...work.fieldPaths, ...renames.map(() => null)] };
  return [keeping, work];
}

/**
 * Moves the values of renamed fields to their new names, item by item through the items' write path:
 * an `item.updated` per item (live or soft-deleted) that holds a value under an old name, which sets
 * the new name and clears the old one. The items come from the read model; the values from each
 * item's stream, under its lock. Returns how many items moved.
 */
async function moveValues(context: AppContext, tx: Queryable, siteId: string, work: CollectionWork, renames: readonly FieldRename[], metadata: EventMetadata) {
  const from = renames.map((rename) => rename.from);
  const rows = await tx.query<{ id: string }>(sql`
    SELECT id FROM items WHERE site_id = ${siteId} AND collection = ${work.name}
       AND EXISTS (SELECT 1 FROM unnest(${from}::text[]) AS f(name) WHERE data ? f.name AND data -> f.name <> 'null'::jsonb)
     ORDER BY id`);
  const fields = [...work.fields.map((field) => field.field), ...from];
  const cause = { configImport: { renamed: Object.fromEntries(renames.map((rename) => [rename.from, rename.to])) } };
  const values = (snapshot: Record<string, unknown>) =>
    Object.fromEntries(renames.flatMap(({ from: old, to }) => ((snapshot[old] ?? null) === null ? [] : [[to, snapshot[old]], [old, null]])));
  const now = new Date().toISOString();
  let moved = 0;
  for (const { id } of rows) {
    const appended = await changeStoredValuesIn(context, tx, { siteId, collection: work.name, itemId: id, values, fields, metadata, cause, now });
    if (appended > 0) moved += 1;
  }
  return moved;
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

/** The errors the deciders would answer, from each stream's current state; nothing is appended (needs the plan's destructive marks, which say what moves). */
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
    let state = eventsOf(collectionDecider, events).reduce(collectionDecider.evolve, collectionDecider.initialState());
    try {
      for (const step of schemaSteps(work, movingRenames(plan, work))) {
        state = collectionDecider.decide(applySchemaCommand(step), state).reduce(collectionDecider.evolve, state);
      }
    } catch (error) {
      errors.push(asManifestError(error instanceof AppError ? collectionError(error, work, base) : error));
    }
  }
  for (const { relation, path } of plan.work.relations) {
    const events = await history(relationStreamId(siteId, relation.id));
    const state = eventsOf(relationDecider, events).reduce(relationDecider.evolve, relationDecider.initialState());
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
    const renames = movingRenames(plan, collection);
    for (const [index, step] of schemaSteps(collection, renames).entries()) {
      if (index > 0) await moveValues(context, tx, siteId, collection, renames, metadata);
      try {
        await collectionCommand(collection.name, applySchemaCommand(step));
      } catch (error) {
        throw error instanceof AppError ? collectionError(error, step, tools.base) : error;
      }
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
