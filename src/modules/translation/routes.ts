// /tm: the translation memory (docs/translation.md). Entries, lookups and translation for any member
// of the site (level `user`); glossary writes for site administrators.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import { translationCommands } from './commands.ts';
import { lookupEntry } from './lookup.ts';
import { normalizeText } from './normalize.ts';
import { findEntry, findTerm, listEntries, listTerms } from './queries.ts';
import {
  DEFAULT_THRESHOLD,
  entryBody,
  entryListQuery,
  entryPatchBody,
  entrySchema,
  glossaryBody,
  glossaryListQuery,
  glossaryPatchBody,
  listMetaSchema,
  lookupBody,
  matchSchema,
  termSchema,
  translateBody,
  translationSchema,
  type TranslationView,
} from './schemas.ts';

const tags = ['translation'];
const MEMBER = { site: 'required', access: 'user' } as const;
const idParams = z.object({ id: z.string() });
const entryAnswer = z.object({ data: entrySchema });
const termAnswer = z.object({ data: termSchema });

export async function translationRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const inSite = <T>(siteId: string, read: Parameters<typeof context.database.withSite<T>>[1]) => context.database.withSite<T>(siteId, read);

  // Entries
  api.get(
    '/tm',
    { config: MEMBER, schema: { tags, querystring: entryListQuery, response: { 200: z.object({ data: z.array(entrySchema), meta: listMetaSchema }) } } },
    async (request) => {
      const { query, siteId } = request;
      const { entries, total } = await context.database.withSiteReads(siteId, (tx) => listEntries(tx, siteId, query));
      return { data: entries, meta: { total, limit: query.limit, offset: query.offset } };
    },
  );
  api.post('/tm', { config: MEMBER, schema: { tags, body: entryBody, response: { 200: entryAnswer, 201: entryAnswer } } }, async (request, reply) => {
    const { entry, created } = await context.commands.runValidated(translationCommands.saveEntry, request.body, commandCaller(request));
    return reply.status(created ? 201 : 200).send({ data: entry });
  });
  api.post(
    '/tm/lookup',
    { config: MEMBER, schema: { tags, body: lookupBody, response: { 200: z.object({ data: z.object({ match: matchSchema.nullable() }) }) } } },
    async (request) => {
      const { siteId, body } = request;
      const lookup = { normalizedQuery: normalizeText(body.query), sourceLang: body.sourceLang, targetLang: body.targetLang, threshold: body.threshold ?? DEFAULT_THRESHOLD };
      return { data: { match: await inSite(siteId, (tx) => lookupEntry(tx, siteId, lookup)) } };
    },
  );
  api.post('/tm/translate', { config: MEMBER, schema: { tags, body: translateBody, response: { 200: z.object({ data: translationSchema }) } } }, async (request) => ({
    data: await context.commands.run<TranslationView>('translation.translate', request.body, commandCaller(request)),
  }));

  // Glossary (static paths win over /tm/:id in the router)
  api.get(
    '/tm/glossary',
    { config: MEMBER, schema: { tags, querystring: glossaryListQuery, response: { 200: z.object({ data: z.array(termSchema), meta: listMetaSchema }) } } },
    async (request) => {
      const { query, siteId } = request;
      const { terms, total } = await context.database.withSiteReads(siteId, (tx) => listTerms(tx, siteId, query));
      return { data: terms, meta: { total, limit: query.limit, offset: query.offset } };
    },
  );
  api.post('/tm/glossary', { config: SITE_ADMIN, schema: { tags, body: glossaryBody, response: { 201: termAnswer } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(translationCommands.createTerm, request.body, commandCaller(request)) }),
  );
  api.get('/tm/glossary/:id', { config: MEMBER, schema: { tags, params: idParams, response: { 200: termAnswer } } }, async (request) => {
    const term = await inSite(request.siteId, (tx) => findTerm(tx, request.siteId, uuidOr404(request.params.id, 'Glossary term')));
    if (!term) throw errors.notFound('Glossary term not found');
    return { data: term };
  });
  api.patch('/tm/glossary/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, body: glossaryPatchBody, response: { 200: termAnswer } } }, async (request) => ({
    data: await context.commands.runValidated(translationCommands.updateTerm, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
  api.delete('/tm/glossary/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(translationCommands.deleteTerm, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  // One entry
  api.get('/tm/:id', { config: MEMBER, schema: { tags, params: idParams, response: { 200: entryAnswer } } }, async (request) => {
    const entry = await inSite(request.siteId, (tx) => findEntry(tx, request.siteId, uuidOr404(request.params.id, 'Translation memory entry')));
    if (!entry) throw errors.notFound('Translation memory entry not found');
    return { data: entry };
  });
  api.patch('/tm/:id', { config: MEMBER, schema: { tags, params: idParams, body: entryPatchBody, response: { 200: entryAnswer } } }, async (request) => ({
    data: await context.commands.runValidated(translationCommands.updateEntry, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
  api.delete('/tm/:id', { config: MEMBER, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(translationCommands.deleteEntry, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
