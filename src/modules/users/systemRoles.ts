// Roles the service itself relies on, found by their systemKey and created on demand: the site's
// subscriber role (self-registered users; never admin). Their ids are name-based, so concurrent
// creators collide on one stream and the loser retries and finds the role.
import { roleDecider } from '../../../domain/identity/role.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { Projection } from '../../../projections/projection.ts';
import { deterministicUuid } from '../../auth/deterministicId.ts';
import { handleCommandIn } from '../../runtime/commandHandler.ts';

export const SUBSCRIBER_ROLE_KEY = 'subscriber';

const SYSTEM_ROLE_NAMES: Record<string, string> = { [SUBSCRIBER_ROLE_KEY]: 'Subscriber' };

export function systemRoleId(siteId: string, systemKey: string): string {
  return deterministicUuid(`${siteId}/role/${systemKey}`);
}

/** The id of the site's role with this systemKey, creating it (non-admin) when missing. */
export async function ensureSystemRole(
  tx: Queryable,
  projections: readonly Projection[],
  siteId: string,
  systemKey: string,
  metadata: EventMetadata,
): Promise<string> {
  const [existing] = await tx.query<{ id: string }>(sql`SELECT id FROM roles WHERE site_id = ${siteId} AND system_key = ${systemKey}`);
  if (existing) return existing.id;
  const roleId = systemRoleId(siteId, systemKey);
  await handleCommandIn(tx, projections, {
    siteId,
    streamId: streamId(siteId, 'role', roleId),
    decider: roleDecider,
    command: { type: 'createRole', roleId, name: SYSTEM_ROLE_NAMES[systemKey] ?? systemKey, admin: false, systemKey },
    metadata,
  });
  return roleId;
}
