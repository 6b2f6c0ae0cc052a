// The translation area's commands (the command registry, docs/architecture.md): entries (upsert,
// change, delete; any member: translators are editors) and glossary terms (site administrators);
// and, bound to the area's runtime (the provider client), the translate pipeline
// (`translationRuntimeCommands`, registered by the manifest).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { deleteEntry, updateEntry, upsertEntry } from './entries.ts';
import { createTerm, deleteTerm, updateTerm } from './glossary.ts';
import { entryBody, entryPatchBody, glossaryBody, glossaryPatchBody, translateBody } from './schemas.ts';
import { translateText } from './translate.ts';
import type { TranslationRuntime } from './translationRuntime.ts';

const idInput = z.object({ id: z.string() });

const saveEntry = defineCommand({
  name: 'translation.saveEntry',
  description:
    'Save a translation memory entry { sourceLang, targetLang, sourceText, targetText, quality?, context?, source?, entrySource? }: the entry of the same ' +
    'languages and normalized source text is updated (`created` false), else one is created.',
  input: entryBody,
  access: 'user',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => upsertEntry(context, siteId, input, metadata),
});

const updateEntryCommand = defineCommand({
  name: 'translation.updateEntry',
  description: "Change a translation memory entry's targetText, quality, context or source.",
  input: entryPatchBody.omit({ id: true }).safeExtend({ id: z.string() }),
  access: 'user',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { targetText, quality, context: note, source } = input;
    return updateEntry(context, siteId, uuidOr404(input.id, 'Translation memory entry'), { targetText, quality, context: note, source }, metadata);
  },
});

const deleteEntryCommand = defineCommand({
  name: 'translation.deleteEntry',
  description: 'Delete a translation memory entry.',
  input: idInput,
  access: 'user',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteEntry(context, siteId, uuidOr404(input.id, 'Translation memory entry'), metadata),
});

const createTermCommand = defineCommand({
  name: 'translation.createTerm',
  description: 'Add a glossary term { sourceLang, targetLang, term, translation, caseSensitive? }, unique per language pair and normalized term.',
  input: glossaryBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createTerm(context, siteId, input, metadata),
});

const updateTermCommand = defineCommand({
  name: 'translation.updateTerm',
  description: "Change a glossary term's term, translation or caseSensitive.",
  input: glossaryPatchBody.omit({ id: true }).safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { term, translation, caseSensitive } = input;
    return updateTerm(context, siteId, uuidOr404(input.id, 'Glossary term'), { term, translation, caseSensitive }, metadata);
  },
});

const deleteTermCommand = defineCommand({
  name: 'translation.deleteTerm',
  description: 'Delete a glossary term.',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteTerm(context, siteId, uuidOr404(input.id, 'Glossary term'), metadata),
});

export const translationCommands = {
  saveEntry,
  updateEntry: updateEntryCommand,
  deleteEntry: deleteEntryCommand,
  createTerm: createTermCommand,
  updateTerm: updateTermCommand,
  deleteTerm: deleteTermCommand,
};

/** The commands that need the translation runtime (the provider): the manifest registers them when it starts. */
export function translationRuntimeCommands(runtime: TranslationRuntime) {
  const translate = defineCommand({
    name: 'translation.translate',
    description:
      'Translate { text, from, to, save? }: translation memory (a match at 75), then the glossary, then the configured provider; the answer names the stage. ' +
      "With save, a provider's translation is saved to memory (entrySource 'provider').",
    input: translateBody,
    access: 'user',
    // It may call an outside service (and, with save, write an entry).
    dangerous: false,
    skill: true,
    handler: (context, { siteId, input, metadata }) => translateText(context, runtime, siteId, input, metadata),
  });
  return { translate };
}
