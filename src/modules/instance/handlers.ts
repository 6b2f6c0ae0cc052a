// Instance-level commands: create a site with its administrator role, its public role and first user,
// delete a site.
import { randomUUID } from 'node:crypto';
import { roleDecider } from '../../../domain/identity/role.ts';
import { userDecider } from '../../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { siteDecider } from '../../../domain/sites/site.ts';
import { hashPassword } from '../../../infra/crypto/passwords.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand, handleCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createPublicRole } from '../roles/handlers.ts';

export interface SiteView {
  id: string;
  name: string;
  createdAt: string;
}

export interface CreateSiteInput {
  id: string;
  name?: string;
  adminEmail: string;
  adminPassword: string;
}

export const ADMIN_ROLE_KEY = 'admin';

export async function createSite(context: AppContext, input: CreateSiteInput, metadata: EventMetadata): Promise<SiteView> {
  const passwordHash = await hashPassword(input.adminPassword);
  const now = new Date();
  const userId = randomUUID();
  await context.database.withSite(input.id, async (tx) => {
    const roleId = await createSiteIn(context, tx, input.id, input.name ?? input.id, now, metadata);
    await handleCommandIn(tx, context.projections, {
      siteId: input.id,
      streamId: streamId(input.id, 'user', userId),
      decider: userDecider,
      command: { type: 'createUser', userId, email: input.adminEmail, passwordHash, roleId, firstName: 'Admin', lastName: null },
      metadata,
    });
  });
  return { id: input.id, name: input.name ?? input.id, createdAt: now.toISOString() };
}

/** A site with its administrator role and its public role, and no user (a pull request's preview site); answers the administrator role's id. */
export async function createSiteIn(context: AppContext, tx: Queryable, siteId: string, name: string, now: Date, metadata: EventMetadata): Promise<string> {
  const roleId = randomUUID();
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: streamId(siteId, 'site', siteId),
    decider: siteDecider,
    command: { type: 'createSite', siteId, name, now },
    metadata,
  });
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: streamId(siteId, 'role', roleId),
    decider: roleDecider,
    command: { type: 'createRole', roleId, name: 'Administrator', admin: true, systemKey: ADMIN_ROLE_KEY },
    metadata,
  });
  // What requests without credentials may do: nothing until an administrator attaches a policy.
  await createPublicRole(tx, context.projections, siteId, metadata);
  return roleId;
}

export async function deleteSite(context: AppContext, siteId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'site', siteId),
    decider: siteDecider,
    command: { type: 'deleteSite', siteId, now: new Date() },
    metadata,
  });
}

export async function listSites(context: AppContext): Promise<SiteView[]> {
  const rows = await context.database.query<{ id: string; name: string; created_at: Date }>(
    sql`SELECT id, name, created_at FROM sites WHERE deleted_at IS NULL ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at.toISOString() }));
}

/** Creates the bootstrap site of SVC_BOOTSTRAP_* when it does not exist yet. */
export async function bootstrapSite(context: AppContext): Promise<void> {
  const { SVC_BOOTSTRAP_SITE: id, SVC_BOOTSTRAP_ADMIN_EMAIL: adminEmail, SVC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword } = context.config;
  if (!id || !adminEmail || !adminPassword) return;
  const existing = await context.database.query(sql`SELECT 1 FROM sites WHERE id = ${id}`);
  if (existing.length > 0) return;
  await createSite(context, { id, adminEmail, adminPassword }, { actor: { kind: 'system', id: 'bootstrap' } });
  context.logger.info({ site: id }, 'bootstrap site created');
}
