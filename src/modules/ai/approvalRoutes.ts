// /ai/approvals (docs/ai-skills.md): the pending approvals (a site administrator sees the site's,
// anyone else their own requests), one approval, a person's decision; and
// /agent/approvals/:id/agent-decide, an agent's review.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { commandCaller, pageMeta, pageMetaSchema } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { approvalCommands } from './approvalCommands.ts';
import { approvalForReviewer } from './approvalView.ts';
import { findApproval, listApprovals, reviewCapabilityOf } from './approvalQueries.ts';
import { approvalSchema, decideApprovalBody, decisionSchema, listApprovalsQuery } from './approvalSchemas.ts';

const tags = ['ai'];
const route = { site: 'required', access: 'bearer' } as const;
const idParams = z.object({ id: z.string() });

export async function approvalRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/ai/approvals',
    { config: route, schema: { tags, querystring: listApprovalsQuery, response: { 200: z.object({ data: z.array(approvalSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const principal = userPrincipal(request.principal);
      const requesterId = principal.admin ? null : principal.userId;
      const { approvals, total } = await context.database.withSiteReads(request.siteId, (tx) => listApprovals(tx, request.siteId, { ...request.query, requesterId }));
      return { data: approvals, meta: pageMeta(total, request.query) };
    },
  );

  api.get('/ai/approvals/:id', { config: route, schema: { tags, params: idParams, response: { 200: z.object({ data: approvalSchema }) } } }, async (request) => {
    const principal = userPrincipal(request.principal);
    const approval = await context.database.withSiteReads(request.siteId, (tx) => findApproval(tx, request.siteId, request.params.id));
    if (approval !== null && (principal.admin || approval.requester.userId === principal.userId)) return { data: approval };
    // Another person's approval is none of the caller's, unless they may decide it: then it shows what their own read rights show.
    const access = await request.access();
    const reviewed = approval !== null && access.hasCapability(reviewCapabilityOf(approval.call.skill)) ? await approvalForReviewer(context, request.siteId, approval, access) : null;
    if (!reviewed) throw errors.notFound('Approval not found');
    return { data: reviewed };
  });

  api.post(
    '/ai/approvals/:id/decide',
    { config: route, schema: { tags, params: idParams, body: decideApprovalBody, response: { 200: z.object({ data: decisionSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(approvalCommands.decide, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );

  api.post(
    '/agent/approvals/:id/agent-decide',
    { config: route, schema: { tags: ['agents'], params: idParams, body: decideApprovalBody, response: { 200: z.object({ data: approvalSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(approvalCommands.agentReview, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );
}
