// /policies (site admin): policy CRUD, its permission rules (/policies/:id/permissions) and its
// attachments to roles, users and teams (/policies/:id/attach, /policies/:id/detach).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AttachmentTarget } from '../../../domain/access/policy.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { addPermission, attachPolicy, createPolicy, deletePolicy, detachPolicy, removePermission, updatePolicy } from './handlers.ts';
import { findPolicy, listPermissions, listPolicies } from './queries.ts';
import { pageMeta, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';

const policySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  attachments: z.object({ roles: z.array(z.string()), users: z.array(z.string()), teams: z.array(z.string()) }),
  permissionCount: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const permissionSchema = z.object({
  id: z.string(),
  policyId: z.string(),
  collection: z.string().nullable(),
  action: z.string(),
  fields: z.array(z.string()),
  conditions: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
});
const policyFields = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
});
const ruleBody = z
  .object({
    collection: z.string().min(1).max(64).nullable().optional(),
    action: z.string().min(1).max(100),
    fields: z.array(z.string().min(1).max(64)).max(500).nullable().optional(),
    conditions: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();
const targetBody = z.object({ roleId: uuidSchema, userId: uuidSchema, teamId: uuidSchema }).partial().strict();
const idParams = z.object({ id: z.string() });

function targetOf(body: z.infer<typeof targetBody>): AttachmentTarget {
  const targets: AttachmentTarget[] = [];
  if (body.roleId) targets.push({ kind: 'role', id: body.roleId });
  if (body.userId) targets.push({ kind: 'user', id: body.userId });
  if (body.teamId) targets.push({ kind: 'team', id: body.teamId });
  if (targets.length !== 1) throw new AppError('VALIDATION_FAILED', 'Send exactly one of roleId, userId or teamId', { path: ['body'] });
  return targets[0]!;
}

export async function policiesRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/policies',
    {
      config: SITE_ADMIN,
      schema: {
        tags: ['policies'],
        querystring: pageQuery,
      },
    },
    async (request) => {
      const result = await context.database.withSite(request.siteId, (tx) => listPolicies(tx, request.siteId, request.query));
      return { data: result.policies, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post(
    '/policies',
    { config: SITE_ADMIN, schema: { tags: ['policies'], body: policyFields.partial({ description: true }).strict(), response: { 201: z.object({ data: policySchema }) } } },
    async (request, reply) => reply.status(201).send({ data: await createPolicy(context, request.siteId, request.body, request.metadata) }),
  );

  api.get('/policies/:id', { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams } }, async (request) => {
    const id = uuidOr404(request.params.id, 'Policy');
    const found = await context.database.withSite(request.siteId, async (tx) => {
      const policy = await findPolicy(tx, request.siteId, id);
      return policy ? { ...policy, permissions: await listPermissions(tx, request.siteId, id) } : null;
    });
    if (!found) throw errors.notFound('Policy not found');
    return { data: found };
  });

  api.patch(
    '/policies/:id',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: policyFields.partial().strict(), response: { 200: z.object({ data: policySchema }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Policy');
      return { data: await updatePolicy(context, request.siteId, id, request.body, request.metadata) };
    },
  );

  api.delete('/policies/:id', { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams } }, async (request, reply) => {
    const id = uuidOr404(request.params.id, 'Policy');
    await deletePolicy(context, request.siteId, id, request.metadata);
    return reply.status(204).send();
  });

  // ---------- permission rules ----------
  api.get(
    '/policies/:id/permissions',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, response: { 200: z.object({ data: z.array(permissionSchema) }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Policy');
      const permissions = await context.database.withSite(request.siteId, async (tx) => {
        if (!(await findPolicy(tx, request.siteId, id))) throw errors.notFound('Policy not found');
        return listPermissions(tx, request.siteId, id);
      });
      return { data: permissions };
    },
  );

  api.post(
    '/policies/:id/permissions',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: ruleBody, response: { 201: z.object({ data: permissionSchema }) } } },
    async (request, reply) => {
      const id = uuidOr404(request.params.id, 'Policy');
      return reply.status(201).send({ data: await addPermission(context, request.siteId, id, request.body, request.metadata) });
    },
  );

  api.delete(
    '/policies/:id/permissions/:permissionId',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: z.object({ id: z.string(), permissionId: z.string() }) } },
    async (request, reply) => {
      const id = uuidOr404(request.params.id, 'Policy');
      const permissionId = uuidOr404(request.params.permissionId, 'Permission');
      await removePermission(context, request.siteId, id, permissionId, request.metadata);
      return reply.status(204).send();
    },
  );

  // DELETE /policies/:id/permissions with `{ ids }`: several rules at once, all or none.
  api.delete(
    '/policies/:id/permissions',
    {
      config: SITE_ADMIN,
      schema: { tags: ['policies'], params: idParams, body: z.object({ ids: z.array(uuidSchema).min(1).max(500) }).strict() },
    },
    async (request, reply) => {
      const id = uuidOr404(request.params.id, 'Policy');
      await removePermission(context, request.siteId, id, request.body.ids, request.metadata);
      return reply.status(204).send();
    },
  );

  // ---------- attachments ----------
  api.post(
    '/policies/:id/attach',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: targetBody, response: { 200: z.object({ data: policySchema }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Policy');
      return { data: await attachPolicy(context, request.siteId, id, targetOf(request.body), request.metadata) };
    },
  );

  api.post(
    '/policies/:id/detach',
    { config: SITE_ADMIN, schema: { tags: ['policies'], params: idParams, body: targetBody, response: { 200: z.object({ data: policySchema }) } } },
    async (request) => {
      const id = uuidOr404(request.params.id, 'Policy');
      return { data: await detachPolicy(context, request.siteId, id, targetOf(request.body), request.metadata) };
    },
  );
}
