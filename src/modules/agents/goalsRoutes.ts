// /agent/goals (docs/agent-goals.md "Goals"): create and run, list, read, decompose, settle. Every
// route is authenticated and site-scoped; the creator sees its own goals, a site administrator all.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { agentWorkCommands } from './agentWorkCommands.ts';
import { listGoals, visibleGoal } from './agentWorkQueries.ts';
import { createGoalBody, goalAcceptedSchema, decomposeBody, goalListQuery, goalRunSchema, goalSchema, settleBody } from './agentWorkSchemas.ts';
import type { GoalAnswer } from './goals.ts';

const tags = ['agents'];
const MEMBER = { site: 'required', access: 'bearer' } as const;
/** Creating and decomposing a goal may ask the AI provider once per line and run up to 20 skills: limited as the chat. */
const AI_LIMITED = { ...MEMBER, rateLimit: 'aiChat' } as const;
const idParams = z.object({ id: z.string() });
const answerSchemas = {
  200: z.object({ data: goalRunSchema }),
  201: z.object({ data: goalSchema }),
  202: z.object({ data: goalAcceptedSchema }),
};

/** planned: 201 created (200 decomposed); ran 200, or 202 while a step waits (HITL_REQUIRED and the approval, or the staged action); queued 202. */
function sendAnswer(reply: FastifyReply, answer: GoalAnswer, plannedStatus: 200 | 201 = 201): FastifyReply {
  if (answer.kind === 'planned') return reply.status(plannedStatus).send({ data: answer.goal });
  if (answer.kind === 'queued') return reply.status(202).send({ data: { id: answer.goal.id, status: 'queued', runId: answer.runId } });
  const waiting = answer.end.waiting;
  if (waiting?.status === 'pending_approval') return reply.status(202).send({ data: { ...answer.goal, code: 'HITL_REQUIRED', approvalId: waiting.approvalId } });
  if (waiting?.status === 'staged') return reply.status(202).send({ data: { ...answer.goal, stagedId: waiting.stagedId, runAfter: waiting.runAfter } });
  return reply.status(200).send({ data: answer.goal });
}

export async function agentGoalsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/agent/goals',
    { config: MEMBER, schema: { tags, querystring: pageQuery.extend(goalListQuery.shape), response: { 200: z.object({ data: z.array(goalSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const principal = userPrincipal(request.principal);
      const createdBy = principal.admin ? null : principal.userId;
      const intentId = request.query.intentId && isUuid(request.query.intentId) ? request.query.intentId : undefined;
      if (request.query.intentId && !intentId) return { data: [], meta: pageMeta(0, request.query) };
      const { goals, total } = await context.database.withSiteReads(request.siteId, (tx) => listGoals(tx, request.siteId, createdBy, { ...request.query, intentId }));
      return { data: goals, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/agent/goals', { config: AI_LIMITED, schema: { tags, body: createGoalBody, response: answerSchemas } }, async (request, reply) =>
    sendAnswer(reply, await context.commands.run<GoalAnswer>('agents.createGoal', request.body, commandCaller(request))),
  );
  api.get('/agent/goals/:id', { config: MEMBER, schema: { tags, params: idParams, response: { 200: z.object({ data: goalSchema }) } } }, async (request) => ({
    data: await visibleGoal(context, request.siteId, userPrincipal(request.principal), request.params.id),
  }));
  api.post(
    '/agent/goals/:id/decompose',
    { config: AI_LIMITED, schema: { tags, params: idParams, body: decomposeBody.nullish(), response: { 200: answerSchemas[200], 202: answerSchemas[202] } } },
    async (request, reply) =>
      sendAnswer(reply, await context.commands.run<GoalAnswer>('agents.decomposeGoal', { ...(request.body ?? {}), id: request.params.id }, commandCaller(request)), 200),
  );
  api.post('/agent/goals/:id/settle', { config: MEMBER, schema: { tags, params: idParams, body: settleBody, response: { 200: z.object({ data: goalSchema }) } } }, async (request) => ({
    data: await context.commands.runValidated(agentWorkCommands.settleGoal, { ...request.body, id: request.params.id }, commandCaller(request)),
  }));
}
