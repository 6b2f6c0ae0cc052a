// Translation memory entry commands (docs/translation.md "Entries"): the upsert keyed on (site,
// languages, normalized source text), the PATCH of the content fields, the delete.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { EntrySource } from '../../../domain/translation/events.ts';
import { tmEntryDecider, type EntryContent, type TmEntryCommand } from '../../../domain/translation/tmEntry.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { normalizeText } from './normalize.ts';
import { findEntry, findEntryByKey } from './queries.ts';
import { MANUAL_QUALITY, PROVIDER_QUALITY, type EntryBody, type EntryPatch, type EntryView } from './schemas.ts';

const entryStream = (siteId: string, entryId: string) => streamId(siteId, 'tm-entry', entryId);

/** A pair translates from one language into another: the same tag twice is refused at the second. */
export function assertLanguagePair(sourceLang: string, targetLang: string, path: (string | number)[]): void {
  if (sourceLang === targetLang) throw new AppError('VALIDATION_FAILED', 'The target language must differ from the source language', { path });
}

export const defaultQuality = (entrySource: EntrySource) => (entrySource === 'provider' ? PROVIDER_QUALITY : MANUAL_QUALITY);

/**
 * Saves `input` in its key's entry, in `tx`: a new entry, or the existing one's content replaced by
 * what was posted (omitted optional fields take their defaults). Writers of one key queue on its lock,
 * so two concurrent upserts make one entry.
 */
export async function upsertEntryIn(tx: Queryable, context: AppContext, siteId: string, input: EntryBody, metadata: EventMetadata): Promise<{ entry: EntryView; created: boolean }> {
  const { sourceLang, targetLang, sourceText } = input;
  const normalizedSource = normalizeText(sourceText);
  const entrySource = input.entrySource ?? 'manual';
  const content: EntryContent = {
    targetText: input.targetText,
    quality: input.quality ?? defaultQuality(entrySource),
    context: input.context ?? null,
    source: input.source ?? null,
    entrySource,
  };
  await lockUniqueValue(tx, siteId, 'tm-entry', `${sourceLang}/${targetLang}/${normalizedSource}`);
  const existing = await findEntryByKey(tx, siteId, sourceLang, targetLang, normalizedSource);
  const entryId = existing?.id ?? randomUUID();
  const command: TmEntryCommand = existing
    ? { type: 'changeEntry', changes: content }
    : { type: 'saveEntry', entryId, key: { sourceLang, targetLang, sourceText, normalizedSource }, content };
  await handleCommandIn(tx, context.projections, { siteId, streamId: entryStream(siteId, entryId), decider: tmEntryDecider, command, metadata });
  return { entry: (await findEntry(tx, siteId, entryId))!, created: !existing };
}

export async function upsertEntry(context: AppContext, siteId: string, input: EntryBody, metadata: EventMetadata): Promise<{ entry: EntryView; created: boolean }> {
  assertLanguagePair(input.sourceLang, input.targetLang, ['body', 'targetLang']);
  return inSiteTransaction(context, siteId, (tx) => upsertEntryIn(tx, context, siteId, input, metadata));
}

export async function updateEntry(context: AppContext, siteId: string, entryId: string, changes: EntryPatch, metadata: EventMetadata): Promise<EntryView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: entryStream(siteId, entryId),
      decider: tmEntryDecider,
      command: { type: 'changeEntry', changes },
      metadata,
    });
    return (await findEntry(tx, siteId, entryId))!;
  });
}

export async function deleteEntry(context: AppContext, siteId: string, entryId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: entryStream(siteId, entryId), decider: tmEntryDecider, command: { type: 'deleteEntry' }, metadata });
}
