// Glossary term commands (docs/translation.md "Glossary"; site administrators): a term is unique per
// (site, languages, normalized term), checked under the term's lock before anything is written.
import { randomUUID } from 'node:crypto';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { glossaryTermDecider, type TermContent } from '../../../domain/translation/glossaryTerm.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { assertLanguagePair } from './entries.ts';
import { normalizeText } from './normalize.ts';
import { findTerm, findTermByKey } from './queries.ts';
import type { GlossaryBody, GlossaryPatch, TermView } from './schemas.ts';

const termStream = (siteId: string, termId: string) => streamId(siteId, 'tm-glossary-term', termId);

async function assertTermFree(tx: Queryable, siteId: string, sourceLang: string, targetLang: string, normalizedTerm: string, termId: string | null): Promise<void> {
  await lockUniqueValue(tx, siteId, 'tm-glossary-term', `${sourceLang}/${targetLang}/${normalizedTerm}`);
  const taken = await findTermByKey(tx, siteId, sourceLang, targetLang, normalizedTerm);
  if (taken && taken.id !== termId) {
    throw new AppError('CONFLICT', 'The glossary has this term for this language pair already', { path: ['body', 'term'], extensions: { termId: taken.id } });
  }
}

export async function createTerm(context: AppContext, siteId: string, input: GlossaryBody, metadata: EventMetadata): Promise<TermView> {
  const { sourceLang, targetLang } = input;
  assertLanguagePair(sourceLang, targetLang, ['body', 'targetLang']);
  const content: TermContent = { term: input.term, normalizedTerm: normalizeText(input.term), translation: input.translation, caseSensitive: input.caseSensitive ?? false };
  const termId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertTermFree(tx, siteId, sourceLang, targetLang, content.normalizedTerm, null);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: termStream(siteId, termId),
      decider: glossaryTermDecider,
      command: { type: 'createTerm', termId, sourceLang, targetLang, content },
      metadata,
    });
    return (await findTerm(tx, siteId, termId))!;
  });
}

export async function updateTerm(context: AppContext, siteId: string, termId: string, changes: GlossaryPatch, metadata: EventMetadata): Promise<TermView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findTerm(tx, siteId, termId);
    if (!current) throw errors.notFound('Glossary term not found');
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: termStream(siteId, termId), decider: glossaryTermDecider, metadata, lock: true });
    const content: Partial<TermContent> = { translation: changes.translation, caseSensitive: changes.caseSensitive };
    if (changes.term !== undefined) {
      content.term = changes.term;
      content.normalizedTerm = normalizeText(changes.term);
      await assertTermFree(tx, siteId, current.sourceLang, current.targetLang, content.normalizedTerm, termId);
    }
    await opened.decide({ type: 'changeTerm', changes: content });
    return (await findTerm(tx, siteId, termId))!;
  });
}

export async function deleteTerm(context: AppContext, siteId: string, termId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: termStream(siteId, termId), decider: glossaryTermDecider, command: { type: 'deleteTerm' }, metadata });
}
