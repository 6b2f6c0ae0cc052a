// Asking for a person's approval of a dangerous skill call (docs/ai-skills.md): the exact call, who
// asked for whom, the stream versions it read (an item's; a release's and its unpinned items') and the diff it would make,
// recorded as `ai_approval.requested`. What it reads is read as it stands; pii/phi values and fields
// the requester may not read never enter the diff (it is an event).
import { randomUUID } from 'node:crypto';
import { approvalDecider } from '../../../domain/ai/approval.ts';
import type { ApprovalPin } from '../../../domain/ai/approvalEvents.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { readStreamHead } from '../../../infra/eventstore/eventStore.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Access } from '../../access/access.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { CollectionSchema } from '../../schema/siteSchema.ts';
import { findLiveItem } from '../items/historyQueries.ts';
import { itemStreamId } from '../items/itemStreams.ts';
import { releaseStream } from '../releases/handlers.ts';
import { findRelease } from '../releases/queries.ts';
import { shownValue } from './approvalView.ts';
import type { RunSkillOptions } from './skillTypes.ts';

export const approvalStream = (siteId: string, approvalId: string) => streamId(siteId, 'ai-approval', approvalId);

interface Target {
  pins: ApprovalPin[];
  diff: Record<string, unknown>;
}

async function itemTarget(tx: Queryable, siteId: string, collection: CollectionSchema, itemId: string): Promise<{ pin: ApprovalPin; data: Record<string, unknown>; status: string | null }> {
  const item = await findLiveItem(tx, siteId, collection.name, itemId);
  const stream = itemStreamId(siteId, collection.name, itemId);
  const head = item ? await readStreamHead(tx, stream) : null;
  if (!item || !head) throw new AppError('RECORD_NOT_FOUND', `Item "${itemId}" of "${collection.name}" not found`, { path: ['input', 'id'] });
  return { pin: { streamId: stream, version: head.streamPosition }, data: item.data, status: item.status };
}

/** The pins and diff of a call, per skill; a skill this does not know pins nothing and shows its input. */
async function targetOf(context: AppContext, tx: Queryable, siteId: string, access: Access, skill: string, input: Record<string, unknown>): Promise<Target> {
  if (skill === 'items.update' || skill === 'items.delete') {
    const collection = await context.schemas.collection(siteId, String(input.collection));
    const { pin, data, status } = await itemTarget(tx, siteId, collection, String(input.id));
    const before: Record<string, unknown> = { ...data, status };
    if (skill === 'items.delete') {
      const values = Object.fromEntries(Object.entries(before).map(([field, value]) => [field, shownValue(collection, access, field, value)]));
      return { pins: [pin], diff: { kind: 'delete', collection: collection.name, id: String(input.id), item: values } };
    }
    const changes = (input.changes ?? {}) as Record<string, unknown>;
    const fields = Object.fromEntries(
      Object.keys(changes)
        .sort()
        .map((field) => [field, { before: shownValue(collection, access, field, before[field] ?? null), after: shownValue(collection, access, field, changes[field]) }]),
    );
    return { pins: [pin], diff: { kind: 'update', collection: collection.name, id: String(input.id), fields } };
  }
  if (skill === 'items.create') {
    // A create is dangerous when it publishes (skillRunner.ts publishesItems): the items it would write, masked as the others.
    const collection = await context.schemas.collection(siteId, String(input.collection));
    const items = (Array.isArray(input.items) ? input.items : [input.items]) as Record<string, unknown>[];
    const shown = items.map((item) => Object.fromEntries(Object.entries(item ?? {}).map(([field, value]) => [field, shownValue(collection, access, field, value)])));
    return { pins: [], diff: { kind: 'create', collection: collection.name, items: shown } };
  }
  if (skill === 'releases.publish') {
    const releaseId = String(input.id);
    const release = isUuid(releaseId) ? await findRelease(tx, siteId, releaseId) : null;
    const head = release ? await readStreamHead(tx, releaseStream(siteId, releaseId)) : null;
    if (!release || !head) throw new AppError('NOT_FOUND', 'Release not found', { path: ['input', 'id'] });
    // An item the release publishes as it stands (no revision pinned) is pinned too: an edit after the
    // approval was asked for makes it stale instead of publishing content nobody saw.
    const livePins: ApprovalPin[] = [];
    for (const item of release.items.filter((entry) => entry.revisionId === null)) {
      const stream = itemStreamId(siteId, item.collection, item.itemId);
      livePins.push({ streamId: stream, version: (await readStreamHead(tx, stream))?.streamPosition ?? 0 });
    }
    return {
      pins: [{ streamId: releaseStream(siteId, releaseId), version: head.streamPosition }, ...livePins],
      diff: {
        kind: 'publish',
        release: { id: release.id, name: release.name, status: release.status },
        items: release.items.map((item) => ({ collection: item.collection, itemId: item.itemId, action: item.targetStatus, revisionId: item.revisionId })),
      },
    };
  }
  return { pins: [], diff: { kind: 'call', input } };
}

/** Records the approval of `options.call` (as given, so it runs exactly as asked): its id. */
export async function requestApproval(
  context: AppContext,
  options: RunSkillOptions,
  access: Access,
  constitutionVersion: number | null,
  metadata: EventMetadata,
): Promise<string> {
  const { siteId, principal, agent, call } = options;
  const approvalId = randomUUID();
  const target = await context.database.withSiteReads(siteId, (tx) => targetOf(context, tx, siteId, access, call.skill, call.input));
  await handleCommand(context, {
    siteId,
    streamId: approvalStream(siteId, approvalId),
    decider: approvalDecider,
    command: {
      type: 'requestApproval',
      approvalId,
      skill: call.skill,
      input: call.input,
      requester: { userId: principal.userId, via: principal.via, apiKeyId: principal.apiKeyId ?? null, roleId: principal.roleId },
      agent: { id: agent.id, role: agent.role, runId: agent.runId ?? null, intentId: agent.intentId ?? null },
      pins: target.pins,
      diff: target.diff,
      constitutionVersion,
    },
    metadata,
  });
  return approvalId;
}

/** The pinned streams that moved since (a write after the approval was asked for). */
export async function movedPins(context: Pick<AppContext, 'database'>, siteId: string, pins: readonly ApprovalPin[]): Promise<string[]> {
  if (pins.length === 0) return [];
  return context.database.withSiteReads(siteId, async (tx) => {
    const moved: string[] = [];
    for (const pin of pins) {
      const head = await readStreamHead(tx, pin.streamId);
      if ((head?.streamPosition ?? 0) !== pin.version) moved.push(pin.streamId);
    }
    return moved;
  });
}

