// Role commands: create, update (name, description, admin flag, parent), delete. Changes to the role
// hierarchy and names are serialized per site (a transaction-scoped advisory lock), so two concurrent
// re-parentings cannot build a cycle that each alone would not.
import { randomUUID } from 'node:crypto';
import { policyDecider } from '../../../domain/access/policy.ts';
import { PUBLIC_ROLE_KEY, roleDecider, type RoleChanges } from '../../../domain/identity/role.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Projection } from '../../../projections/projection.ts';
import { loadRoleChain } from '../../access/grants.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { systemRoleId } from '../users/systemRoles.ts';
import { findRole, policiesAttachedTo, roleHolders, roleNameTaken, type RoleView } from './queries.ts';

/** The public role's name when it is created (an administrator may rename it). */
export const PUBLIC_ROLE_NAME = 'Public';

export interface RoleInput {
  name: string;
  description?: string | null;
  admin?: boolean;
  parentId?: string | null;
}

export async function lockRoles(tx: Queryable, siteId: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${siteId}/roles`}, 0))`);
}

/** The new parent and its ancestors (nearest first); 400 on an unknown parent. */
async function parentAncestry(tx: Queryable, siteId: string, parentId: string | null | undefined): Promise<string[]> {
  if (!parentId) return [];
  const chain = await loadRoleChain(tx, siteId, { roleId: parentId });
  if (chain.length === 0) throw new AppError('VALIDATION_FAILED', 'No role with this id', { path: ['body', 'parentId'] });
  return chain.map((row) => row.id);
}

async function assertNameFree(tx: Queryable, siteId: string, name: string | undefined, roleId: string | null): Promise<void> {
  if (name !== undefined && (await roleNameTaken(tx, siteId, name, roleId))) {
    throw new AppError('CONFLICT', 'A role with this name already exists', { path: ['body', 'name'] });
  }
}

export async function createRole(context: AppContext, siteId: string, input: RoleInput, metadata: EventMetadata): Promise<RoleView> {
  const roleId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockRoles(tx, siteId);
    await assertNameFree(tx, siteId, input.name, null);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'role', roleId),
      decider: roleDecider,
      command: {
        type: 'createRole',
        roleId,
        name: input.name,
        description: input.description ?? null,
        admin: input.admin ?? false,
        parentId: input.parentId ?? null,
        parentAncestry: await parentAncestry(tx, siteId, input.parentId),
      },
      metadata,
    });
    return (await findRole(tx, siteId, roleId))!;
  });
}

export async function updateRole(context: AppContext, siteId: string, roleId: string, changes: RoleChanges, metadata: EventMetadata): Promise<RoleView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockRoles(tx, siteId);
    if (!(await findRole(tx, siteId, roleId))) throw errors.notFound('Role not found');
    await assertNameFree(tx, siteId, changes.name, roleId);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'role', roleId),
      decider: roleDecider,
      command: { type: 'updateRole', changes, parentAncestry: await parentAncestry(tx, siteId, changes.parentId) },
      metadata,
    });
    return (await findRole(tx, siteId, roleId))!;
  });
}

/** Deletes an unused role; the policies attached to it are detached in the same transaction. */
export async function deleteRole(context: AppContext, siteId: string, roleId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    await lockRoles(tx, siteId);
    if (!(await findRole(tx, siteId, roleId))) throw errors.notFound('Role not found');
    const attached = await policiesAttachedTo(tx, siteId, 'role', roleId);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'role', roleId),
      decider: roleDecider,
      command: { type: 'deleteRole', holders: await roleHolders(tx, siteId, roleId) },
      metadata,
    });
    for (const policyId of attached) {
      await handleCommandIn(tx, context.projections, {
        siteId,
        streamId: streamId(siteId, 'policy', policyId),
        decider: policyDecider,
        command: { type: 'detachPolicy', target: { kind: 'role', id: roleId } },
        metadata,
      });
    }
  });
}

/**
 * The site's public role (systemKey `public`: what requests without credentials may do), created
 * with the site, in its transaction (src/modules/instance/handlers.ts). Its id is name-based
 * (systemRoleId), as migration 0461 gave it to the sites created before it had one.
 */
export async function createPublicRole(tx: Queryable, projections: readonly Projection[], siteId: string, metadata: EventMetadata): Promise<string> {
  const roleId = systemRoleId(siteId, PUBLIC_ROLE_KEY);
  await handleCommandIn(tx, projections, {
    siteId,
    streamId: streamId(siteId, 'role', roleId),
    decider: roleDecider,
    command: { type: 'createRole', roleId, name: PUBLIC_ROLE_NAME, admin: false, systemKey: PUBLIC_ROLE_KEY },
    metadata,
  });
  return roleId;
}
