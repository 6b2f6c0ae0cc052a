// Preset commands (docs/presets.md): create, update, delete, each authorized against the scope of the
// preset (a PATCH that moves it: against both), then checked against the site and the collection.
import { randomUUID } from 'node:crypto';
import { presetDecider, type PresetContent } from '../../../domain/presets/preset.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { Principal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { checkPresetQuery } from './presetQuery.ts';
import { authorizeScope } from './presetScope.ts';
import { findPreset, isSiteMember, isSiteRole, presetSlotTaken, type PresetView } from './queries.ts';
import { MAX_OPTIONS_BYTES, MAX_OPTIONS_DEPTH, type CreatePresetBody, type UpdatePresetBody } from './schemas.ts';
import { jsonNestsDeeperThan } from '../../../domain/shared/jsonDepth.ts';

type Owner = { userId: string | null; roleId: string | null };

const invalid = (message: string, path: (string | number)[]) => new AppError('VALIDATION_FAILED', message, { path });

const lowerOrNull = (id: string | null | undefined) => (id === null || id === undefined ? null : id.toLowerCase());

/** The owner after a change: naming one of `userId` / `roleId` with a value moves the preset to that scope, clearing the other. */
function ownerAfter(current: Owner, changes: { userId?: string | null; roleId?: string | null }): Owner {
  const userId = changes.userId !== undefined ? lowerOrNull(changes.userId) : changes.roleId ? null : current.userId;
  const roleId = changes.roleId !== undefined ? lowerOrNull(changes.roleId) : changes.userId ? null : current.roleId;
  if (userId !== null && roleId !== null) throw invalid('A preset has one scope: a userId or a roleId, not both', ['body', 'roleId']);
  return { userId, roleId };
}

function checkOptions(options: Record<string, unknown>): void {
  const text = JSON.stringify(options);
  if (Buffer.byteLength(text) > MAX_OPTIONS_BYTES) throw invalid(`"options" may hold at most ${MAX_OPTIONS_BYTES} bytes of JSON`, ['body', 'options']);
  if (jsonNestsDeeperThan(text, MAX_OPTIONS_DEPTH)) throw invalid(`"options" nests deeper than ${MAX_OPTIONS_DEPTH} levels`, ['body', 'options']);
}

interface Checks {
  collection: boolean;
  owner: boolean;
  slot: boolean;
}

/** Checks `preset` against the site (what `checks` says changed), then locks and checks its slot. */
async function assertValid(context: AppContext, tx: Queryable, siteId: string, principal: Principal, presetId: string | null, preset: PresetContent, checks: Checks) {
  if (checks.collection) {
    const schema = await context.schemas.site(siteId);
    const collection = schema.collections.get(preset.collection);
    if (!collection) throw invalid(`Unknown collection "${preset.collection}"`, ['body', 'collection']);
    checkPresetQuery(schema, collection, preset.query, principal, new Date(), ['body', 'query']);
  }
  if (checks.owner) {
    if (preset.userId !== null && !(await isSiteMember(tx, siteId, preset.userId))) throw invalid('No user of this site has this id', ['body', 'userId']);
    if (preset.roleId !== null && !(await isSiteRole(tx, siteId, preset.roleId))) throw invalid('No role of this site has this id', ['body', 'roleId']);
  }
  if (!checks.slot) return;
  const ownerKey = preset.userId ? `u:${preset.userId}` : preset.roleId ? `r:${preset.roleId}` : 'g';
  await lockUniqueValue(tx, siteId, 'preset-slot', `${preset.collection}/${ownerKey}/${preset.bookmark?.toLowerCase() ?? ''}`);
  if (await presetSlotTaken(tx, siteId, preset, presetId)) {
    if (preset.bookmark === null) throw errors.conflict('This scope already has a default view of the collection', ['body', 'bookmark']);
    throw errors.conflict('This scope already has a bookmark of this name for the collection', ['body', 'bookmark']);
  }
}

export async function createPreset(context: AppContext, siteId: string, principal: Principal, input: CreatePresetBody, metadata: EventMetadata): Promise<PresetView> {
  const owner = ownerAfter({ userId: null, roleId: null }, { userId: input.userId ?? null, roleId: input.roleId ?? null });
  authorizeScope(principal, owner);
  const preset: PresetContent = {
    collection: input.collection,
    bookmark: input.bookmark ?? null,
    ...owner,
    layout: input.layout,
    query: input.query ?? {},
    options: input.options ?? {},
    icon: input.icon ?? null,
    color: input.color ?? null,
  };
  checkOptions(preset.options);
  const presetId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertValid(context, tx, siteId, principal, null, preset, { collection: true, owner: true, slot: true });
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'preset', presetId),
      decider: presetDecider,
      command: { type: 'createPreset', presetId, preset },
      metadata,
    });
    return (await findPreset(tx, siteId, presetId))!;
  });
}

const contentOf = (view: PresetView): PresetContent => ({
  collection: view.collection,
  bookmark: view.bookmark,
  userId: view.userId,
  roleId: view.roleId,
  layout: view.layout,
  query: view.query,
  options: view.options,
  icon: view.icon,
  color: view.color,
});

export async function updatePreset(
  context: AppContext,
  siteId: string,
  principal: Principal,
  presetId: string,
  changes: UpdatePresetBody,
  metadata: EventMetadata,
): Promise<PresetView> {
  if (changes.options !== undefined) checkOptions(changes.options);
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findPreset(tx, siteId, presetId);
    if (!current) throw errors.notFound('Preset not found');
    authorizeScope(principal, current);
    const owner = ownerAfter(current, changes);
    const moved = owner.userId !== current.userId || owner.roleId !== current.roleId;
    if (moved) authorizeScope(principal, owner);
    const next: PresetContent = { ...contentOf(current), ...withoutUndefined(changes), ...owner };
    const collectionChanged = next.collection !== current.collection;
    const checks = {
      collection: collectionChanged || changes.query !== undefined,
      owner: moved,
      slot: moved || collectionChanged || (changes.bookmark !== undefined && changes.bookmark?.toLowerCase() !== current.bookmark?.toLowerCase()),
    };
    await assertValid(context, tx, siteId, principal, presetId, next, checks);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'preset', presetId),
      decider: presetDecider,
      command: { type: 'updatePreset', changes: next },
      metadata,
    });
    return (await findPreset(tx, siteId, presetId))!;
  });
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

export async function deletePreset(context: AppContext, siteId: string, principal: Principal, presetId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const current = await findPreset(tx, siteId, presetId);
    if (!current) throw errors.notFound('Preset not found');
    authorizeScope(principal, current);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'preset', presetId),
      decider: presetDecider,
      command: { type: 'deletePreset' },
      metadata,
    });
  });
}
