// Transform preset commands: create, change, delete. A preset's key is unique per site (409 CONFLICT),
// checked under a transaction lock on the key; its dsl is checked by the shared transform schema.
import { randomUUID } from 'node:crypto';
import { presetDecider, type PresetChanges } from '../../../domain/files/file.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findPreset, findPresetByKey } from './queries.ts';
import type { PresetView } from './schemas.ts';
import { parsePresetDsl } from './transformParams.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

const presetStream = (siteId: string, presetId: string) => streamId(siteId, 'transform-preset', presetId);

/** Takes the site's lock on `key`, then 409 when another preset has it. */
async function claimKey(tx: Queryable, siteId: string, key: string, presetId: string): Promise<void> {
  await lockUniqueValue(tx, siteId, 'transform-preset-key', key);
  const holder = await findPresetByKey(tx, siteId, key);
  if (holder && holder.id !== presetId) throw new AppError('CONFLICT', `A transform preset is already keyed "${key}"`, { path: ['body', 'key'] });
}

export async function createPreset(context: AppContext, siteId: string, input: { key: string; name: string; dsl: Record<string, unknown> }, metadata: EventMetadata): Promise<PresetView> {
  const dsl = parsePresetDsl(input.dsl, ['body', 'dsl']);
  const presetId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await claimKey(tx, siteId, input.key, presetId);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: presetStream(siteId, presetId),
      decider: presetDecider,
      command: { type: 'createPreset', presetId, key: input.key, name: input.name, dsl },
      metadata,
    });
    return (await findPreset(tx, siteId, presetId))!;
  });
}

export async function updatePreset(context: AppContext, siteId: string, presetId: string, changes: PresetChanges, metadata: EventMetadata): Promise<PresetView> {
  const checked: PresetChanges = { ...changes, ...(changes.dsl !== undefined ? { dsl: parsePresetDsl(changes.dsl, ['body', 'dsl']) } : {}) };
  return inSiteTransaction(context, siteId, async (tx) => {
    if (checked.key !== undefined) await claimKey(tx, siteId, checked.key, presetId);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: presetStream(siteId, presetId),
      decider: presetDecider,
      lock: true,
      command: { type: 'updatePreset', changes: checked },
      metadata,
    });
    const preset = await findPreset(tx, siteId, presetId);
    if (!preset) throw new AppError('NOT_FOUND', 'Transform preset not found');
    return preset;
  });
}

export async function deletePreset(context: AppContext, siteId: string, presetId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: presetStream(siteId, presetId), decider: presetDecider, command: { type: 'deletePreset' }, metadata });
}
