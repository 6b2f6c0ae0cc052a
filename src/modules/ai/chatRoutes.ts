// /ai/chat and /ai/conversations (docs/ai-copilot.md): the copilot's chat (rate limit aiChat), and the
// caller's own conversations of the site: the list, one's messages, its delete.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { commandCaller, pageMeta, pageQuery, uuidOr404 } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { chatBody, chatDoneSchema, chatWaitingSchema, conversationListSchema, messageListSchema } from './chatSchemas.ts';
import { conversationCommands } from './conversationCommands.ts';
import { findConversation, listConversations, listMessages } from './conversationQueries.ts';

const tags = ['ai'];
const route = { site: 'required', access: 'bearer' } as const;
const idParams = z.object({ id: z.string() });
/** A chat body is a short message: no need to read the instance's whole body limit. */
const CHAT_BODY_LIMIT = 64 * 1024;

export async function chatRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/ai/chat',
    {
      bodyLimit: CHAT_BODY_LIMIT,
      config: { ...route, rateLimit: 'aiChat' },
      schema: { tags, body: chatBody, response: { 200: z.object({ data: chatDoneSchema }), 202: z.object({ data: chatWaitingSchema }) } },
    },
    async (request, reply) => {
      const answer = await context.commands.runValidated(conversationCommands.chat, request.body, commandCaller(request));
      if (answer.status === 'pending_approval' || answer.status === 'staged') return reply.status(202).send({ data: answer });
      return reply.status(200).send({ data: answer });
    },
  );

  api.get('/ai/conversations', { config: route, schema: { tags, querystring: pageQuery, response: { 200: conversationListSchema } } }, async (request) => {
    const { userId } = userPrincipal(request.principal);
    const { conversations, total } = await context.database.withSiteReads(request.siteId, (tx) => listConversations(tx, request.siteId, userId, request.query));
    return { data: conversations, meta: pageMeta(total, request.query) };
  });

  api.get(
    '/ai/conversations/:id/messages',
    { config: route, schema: { tags, params: idParams, querystring: pageQuery, response: { 200: messageListSchema } } },
    async (request) => {
      const { userId } = userPrincipal(request.principal);
      const conversationId = uuidOr404(request.params.id, 'Conversation');
      const { siteId } = request;
      const page = await context.database.withSiteReads(siteId, async (tx) => {
        if (!(await findConversation(tx, siteId, conversationId, userId))) return null;
        return listMessages(tx, siteId, conversationId, request.query);
      });
      if (!page) throw errors.notFound('Conversation not found');
      return { data: page.messages, meta: pageMeta(page.total, request.query) };
    },
  );

  api.delete('/ai/conversations/:id', { config: route, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(conversationCommands.delete, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
}
