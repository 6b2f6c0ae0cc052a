// Which permission rules reach a principal, read from the access read models: the rules of every
// policy attached to the principal's user, to each role of its role chain (the role, its parent, the
// parent's parent, ...), and to each team the user belongs to. The subscriber role (systemKey
// `subscriber`) also reads every collection granted through /users/subscriber-access, as if a policy
// said so; roles that inherit from it inherit those grants too. Requests without credentials get
// the site's public role (systemKey `public`).
import { PUBLIC_ROLE_KEY, SUBSCRIBER_ROLE_KEY } from '../../domain/identity/role.ts';
import { isUuid } from '../../domain/shared/uuid.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { sql } from '../../infra/postgres/sql.ts';

/** Deeper chains are cut here; creating a cycle is refused, but a cache must never loop. */
export const MAX_ROLE_DEPTH = 32;

export type GrantSource =
  | { kind: 'role' | 'user' | 'team'; id: string }
  /** The subscriber role's read grants (/users/subscriber-access). */
  | { kind: 'subscriberAccess'; id: string };

export interface GrantedRule {
  /** null for the read grants of subscriber access, which are not stored rules. */
  permissionId: string | null;
  policyId: string | null;
  policyName: string;
  /** How the policy reaches the principal. */
  via: GrantSource;
  collection: string | null;
  action: string;
  /** Field names, `['*']` for all. */
  fields: readonly string[];
  conditions: Record<string, unknown> | null;
}

export interface Subject {
  /** null for requests without credentials and for API keys bound to a role. */
  userId: string | null;
  /** null: no role (or, for anonymous requests, the public role when it exists). */
  roleId: string | null;
  anonymous: boolean;
}

export interface Grants {
  /** The role ids the principal's permissions come through, nearest first. */
  roleChain: readonly string[];
  /** The role `$CURRENT_ROLE` stands for (for anonymous requests: the public role). */
  roleId: string | null;
  teamIds: readonly string[];
  rules: readonly GrantedRule[];
}

interface ChainRow {
  id: string;
  system_key: string | null;
  depth: number;
}

interface RuleRow {
  permission_id: string;
  policy_id: string;
  policy_name: string;
  target_kind: 'role' | 'user' | 'team';
  target_id: string;
  collection: string | null;
  action: string;
  fields: string[];
  conditions: Record<string, unknown> | null;
}

/** The role chain of `roleId` (or of the public role), nearest first. */
export async function loadRoleChain(tx: Queryable, siteId: string, start: { roleId: string } | { systemKey: string }): Promise<ChainRow[]> {
  const anchor =
    'roleId' in start
      ? sql`r.id = ${isUuid(start.roleId) ? start.roleId : null}::uuid`
      : sql`r.system_key = ${start.systemKey}`;
  const rows = await tx.query<ChainRow>(sql`
    WITH RECURSIVE chain(id, parent_id, system_key, depth) AS (
      SELECT r.id, r.parent_id, r.system_key, 0 FROM roles r WHERE r.site_id = ${siteId} AND ${anchor}
      UNION ALL
      SELECT r.id, r.parent_id, r.system_key, c.depth + 1
        FROM roles r JOIN chain c ON r.site_id = ${siteId} AND r.id = c.parent_id
       WHERE c.depth < ${MAX_ROLE_DEPTH}
    )
    SELECT id::text, system_key, depth FROM chain ORDER BY depth`);
  const seen = new Set<string>();
  return rows.filter((row) => (seen.has(row.id) ? false : (seen.add(row.id), true)));
}

export async function loadGrants(tx: Queryable, siteId: string, subject: Subject): Promise<Grants> {
  const chain = subject.anonymous
    ? await loadRoleChain(tx, siteId, { systemKey: PUBLIC_ROLE_KEY })
    : subject.roleId
      ? await loadRoleChain(tx, siteId, { roleId: subject.roleId })
      : [];
  const userId = subject.userId && isUuid(subject.userId) ? subject.userId : null;
  const teamIds = userId
    ? (await tx.query<{ team_id: string }>(sql`SELECT team_id::text FROM team_members WHERE site_id = ${siteId} AND user_id = ${userId}::uuid ORDER BY team_id`)).map(
        (row) => row.team_id,
      )
    : [];
  const roleIds = chain.map((row) => row.id);
  const rows = await tx.query<RuleRow>(sql`
    SELECT p.id::text AS permission_id, pol.id::text AS policy_id, pol.name AS policy_name, a.target_kind, a.target_id::text,
           p.collection, p.action, p.fields, p.conditions
      FROM policy_attachments a
      JOIN policies pol ON pol.site_id = a.site_id AND pol.id = a.policy_id
      JOIN policy_permissions p ON p.site_id = a.site_id AND p.policy_id = a.policy_id
     WHERE a.site_id = ${siteId}
       AND ((a.target_kind = 'role' AND a.target_id = ANY(${roleIds}::uuid[]))
         OR (a.target_kind = 'user' AND a.target_id = ${userId}::uuid)
         OR (a.target_kind = 'team' AND a.target_id = ANY(${teamIds}::uuid[])))
     ORDER BY p.position`);
  const rules: GrantedRule[] = rows.map((row) => ({
    permissionId: row.permission_id,
    policyId: row.policy_id,
    policyName: row.policy_name,
    via: { kind: row.target_kind, id: row.target_id },
    collection: row.collection,
    action: row.action,
    fields: row.fields,
    conditions: row.conditions,
  }));
  const subscriberRole = chain.find((row) => row.system_key === SUBSCRIBER_ROLE_KEY);
  if (subscriberRole) {
    const granted = await tx.query<{ collection: string }>(sql`SELECT collection FROM subscriber_access WHERE site_id = ${siteId} ORDER BY collection`);
    for (const { collection } of granted) {
      rules.push({
        permissionId: null,
        policyId: null,
        policyName: 'Subscriber access',
        via: { kind: 'subscriberAccess', id: subscriberRole.id },
        collection,
        action: 'read',
        fields: ['*'],
        conditions: null,
      });
    }
  }
  return { roleChain: roleIds, roleId: subject.anonymous ? (roleIds[0] ?? null) : subject.roleId, teamIds, rules };
}

/** The site's access version: the log position of its last access-relevant event (0 when none). */
export async function readAccessVersion(tx: Queryable, siteId: string): Promise<number> {
  const [row] = await tx.query<{ version: number }>(sql`SELECT version FROM access_versions WHERE site_id = ${siteId}`);
  return row?.version ?? 0;
}
