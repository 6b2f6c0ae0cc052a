// /permissions/me: the caller's effective permission matrix (requests without credentials get the
// public role's). /permissions/check: why an action on a collection, or on one item, is allowed or
// not; administrators may ask on behalf of a user or a role.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isCapability, isItemAction } from '../../../domain/access/permissionRule.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { accessForSubject, type Access } from '../../access/access.ts';
import { explainDecision, permissionMatrix } from '../../access/explain.ts';
import type { Principal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';

const checkBody = z
  .object({
    action: z.string().min(1).max(100),
    collection: z.string().min(1).max(64).nullable().optional(),
    itemId: z.string().min(1).max(200).optional(),
    principal: z.union([z.object({ userId: uuidSchema }).strict(), z.object({ roleId: uuidSchema }).strict()]).optional(),
  })
  .strict();

function principalView(principal: Principal, access: Access) {
  if (principal.kind === 'user') {
    return { kind: 'user' as const, userId: principal.userId || null, roleId: principal.roleId, admin: access.admin };
  }
  return { kind: principal.kind, userId: null, roleId: access.grants.roleId, admin: access.admin };
}

export async function permissionsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/permissions/me', { config: { site: 'required', access: 'public' }, schema: { tags: ['permissions'] } }, async (request) => {
    const access = await request.access();
    const schema = await context.schemas.site(request.siteId);
    return { data: { principal: principalView(request.principal, access), ...permissionMatrix(access, [...schema.collections.keys()]) } };
  });

  api.post('/permissions/check', { config: { site: 'required', access: 'bearer' }, schema: { tags: ['permissions'], body: checkBody } }, async (request) => {
    const { action, itemId } = request.body;
    const collection = request.body.collection ?? null;
    const own = await request.access();
    if (request.body.principal && !own.admin) {
      throw new AppError('PERMISSION_DENIED', 'Only administrators may check on behalf of another principal', { path: ['body', 'principal'] });
    }
    if (!isItemAction(action) && !isCapability(action)) {
      throw new AppError('VALIDATION_FAILED', `Unknown action "${action}"`, { path: ['body', 'action'] });
    }
    if (isItemAction(action) && collection === null) {
      throw new AppError('VALIDATION_FAILED', `Action "${action}" needs a collection`, { path: ['body', 'collection'] });
    }
    if (collection !== null && !(await context.schemas.site(request.siteId)).collections.has(collection)) {
      throw new AppError('VALIDATION_FAILED', `Unknown collection "${collection}"`, { path: ['body', 'collection'] });
    }
    if (itemId !== undefined && (collection === null || !isItemAction(action))) {
      throw new AppError('VALIDATION_FAILED', 'itemId applies to create, read, update or delete on a collection', { path: ['body', 'itemId'] });
    }
    const access = request.body.principal ? await accessOfTarget(request.siteId, request.body.principal) : own;
    const decision = await context.database.withSite(request.siteId, (tx) =>
      explainDecision(tx, access, { action, collection, itemId, revealItems: access !== own || own.admin }),
    );
    return {
      data: {
        action,
        collection,
        ...(itemId === undefined ? {} : { itemId }),
        principal: principalView(access.principal, access),
        ...decision,
      },
    };
  });

  async function accessOfTarget(siteId: string, target: { userId: string } | { roleId: string }): Promise<Access> {
    if ('userId' in target) {
      const [user] = await context.database.withSite(siteId, (tx) =>
        tx.query<{ role_id: string | null; admin: boolean | null }>(sql`
          SELECT u.role_id::text, r.admin FROM users u LEFT JOIN roles r ON r.site_id = u.site_id AND r.id = u.role_id
           WHERE u.site_id = ${siteId} AND u.id = ${target.userId}::uuid AND u.deleted_at IS NULL`),
      );
      if (!user) throw new AppError('VALIDATION_FAILED', 'No user with this id', { path: ['body', 'principal', 'userId'] });
      return accessForSubject(context, siteId, { userId: target.userId, roleId: user.role_id, admin: user.admin === true });
    }
    const [role] = await context.database.withSite(siteId, (tx) =>
      tx.query<{ admin: boolean }>(sql`SELECT admin FROM roles WHERE site_id = ${siteId} AND id = ${target.roleId}::uuid`),
    );
    if (!role) throw new AppError('VALIDATION_FAILED', 'No role with this id', { path: ['body', 'principal', 'roleId'] });
    return accessForSubject(context, siteId, { userId: null, roleId: target.roleId, admin: role.admin });
  }
}
