// Resolving the items that point at an item through one relation, in one transaction: set their
// field to null, delete them (the normal delete path, or hard), or point them at another item. The
// item must be readable, and each dependent changed must be one the principal may change.
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Access } from '../../access/access.ts';
import { assertRowAccess } from '../../access/itemAccess.ts';
import { assertMay, assertMayChangeDependent, dependentSampleCondition } from '../../access/itemWriteRules.ts';
import { collectionOf, declaredFields } from '../../schema/siteSchema.ts';
import { dependentIds, dependentsOf, type DependentsReport } from './dependents.ts';
import { deleteIn } from './deleteItem.ts';
import { inItemWriteTransaction, runItemCommand, type ItemsWriteContext } from './itemStreams.ts';
import { findLiveItem } from './historyQueries.ts';
import { itemKey, lockLiveItems } from './referenceTargets.ts';

export interface ResolveDependentsInput {
  siteId: string;
  collection: string;
  itemId: string;
  action: 'set_null' | 'delete' | 'reassign';
  relation: string;
  newTargetId?: string;
  hard?: boolean;
  access: Access;
  metadata: EventMetadata;
}

export interface ResolveDependentsResult extends DependentsReport {
  action: ResolveDependentsInput['action'];
  relation: string;
  /** Dependents changed or deleted. */
  affected: number;
}

export async function resolveDependents(context: ItemsWriteContext, input: ResolveDependentsInput): Promise<ResolveDependentsResult> {
  const { access } = input;
  assertMay(access, 'read', input.collection);
  const schema = await context.schemas.site(input.siteId);
  const collection = collectionOf(schema, input.collection);
  const references = collection.references.filter((reference) => reference.relationId === input.relation);
  if (references.length === 0) {
    throw new AppError('VALIDATION_FAILED', `Relation "${input.relation}" does not point at "${collection.name}"`, { path: ['body', 'relation'] });
  }
  if (input.action === 'set_null') {
    for (const reference of references) {
      if (schema.collections.get(reference.collection)?.fields.get(reference.field)?.required) {
        throw new AppError('FIELD_REQUIRED', `"${reference.collection}.${reference.field}" is required; it cannot be set to null`, {
          path: ['body', 'action'],
          extensions: { collection: reference.collection, field: reference.field },
        });
      }
    }
  }
  if (input.action === 'reassign' && !input.newTargetId) {
    throw new AppError('VALIDATION_FAILED', 'reassign needs newTargetId', { path: ['body', 'newTargetId'] });
  }
  const now = new Date().toISOString();
  const actorId = input.metadata.actor.id;
  return inItemWriteTransaction(context, input.siteId, async (tx) => {
    await assertRowAccess(tx, access, 'read', collection.name, input.itemId);
    if (!(await findLiveItem(tx, input.siteId, collection.name, input.itemId))) {
      throw new AppError('RECORD_NOT_FOUND', `Item "${input.itemId}" of "${collection.name}" not found`);
    }
    if (input.action === 'reassign') {
      const target = input.newTargetId!;
      // Locked FOR KEY SHARE like any reference a write sets: the target cannot be deleted under the reassignment.
      if (target === input.itemId || !(await lockLiveItems(tx, input.siteId, [{ collection: collection.name, id: target }])).has(itemKey(collection.name, target))) {
        throw new AppError('INVALID_TARGET', `"${target}" is not another live item of "${collection.name}"`, { path: ['body', 'newTargetId'] });
      }
    }
    let affected = 0;
    for (const reference of references) {
      const dependentCollection = collectionOf(schema, reference.collection);
      const declared = declaredFields(schema, reference.collection);
      for (const id of await dependentIds(tx, input.siteId, reference, input.itemId)) {
        if (input.action === 'delete') {
          await assertMayChangeDependent(tx, access, reference.collection, id, { action: 'delete' }, declared);
          await deleteIn(context, tx, {
            siteId: input.siteId,
            collection: dependentCollection,
            itemId: id,
            metadata: input.metadata,
            access,
            ...(input.hard ? { hard: true, cause: { resolvedDependentsOf: { collection: collection.name, itemId: input.itemId } } } : {}),
          });
        } else {
          const values: Record<string, unknown> = { [reference.field]: input.action === 'reassign' ? input.newTargetId! : null };
          if (input.action === 'set_null' && reference.collectionField) values[reference.collectionField] = null;
          await assertMayChangeDependent(tx, access, reference.collection, id, { action: 'update', values }, declared);
          await runItemCommand(context, tx, {
            siteId: input.siteId,
            collection: dependentCollection,
            itemId: id,
            metadata: input.metadata,
            kind: 'update',
            access,
            command: {
              type: 'updateItem',
              collection: reference.collection,
              itemId: id,
              changes: { values, keepHashes: [], translations: {} },
              mode: 'patch',
              target: 'main',
              required: dependentCollection.requiredFields,
              fields: [...dependentCollection.fields.keys()],
              eventType: 'item.updated',
              cause: { resolvedDependentsOf: { collection: collection.name, itemId: input.itemId, action: input.action } },
              actorId,
              now,
            },
          });
        }
        affected += 1;
      }
    }
    const report = await dependentsOf(tx, input.siteId, collection, input.itemId, collection.references, dependentSampleCondition(access));
    return { action: input.action, relation: input.relation, affected, ...report };
  });
}
