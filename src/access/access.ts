// The one place that answers "may this principal do that?" for a site. Every route asks through an
// Access built once per request (request.access(), src/server/app.ts): `can(action, collection)`, `allowedFields`,
// `rowFilter` (the OR of the matching rules' conditions, validated by the query language with
// $CURRENT_USER / $CURRENT_ROLE / $NOW substituted; a rule without conditions reaches every row) and
// `hasCapability`. Administrators (a role with the admin flag) and the instance token may do everything.
import { isItemAction, ALL_FIELDS } from '../../domain/access/permissionRule.ts';
import { raw, type SqlFragment } from '../../infra/postgres/sql.ts';
import { isSiteAdmin, type Principal } from '../auth/principal.ts';
import type { SiteSchema } from '../schema/schemaCache.ts';
import { compileFilterNode, ITEMS_TABLE, resolveFilter, type FilterNode } from '../query/index.ts';
import type { AppContext } from '../runtime/context.ts';
import type { GrantedRule, Grants, Subject } from './grants.ts';

export interface FieldAllowance {
  /** Every field of the collection. */
  readonly all: boolean;
  /** The fields listed, when not `all`. */
  readonly fields: ReadonlySet<string>;
  has(field: string): boolean;
}

export interface Access {
  readonly siteId: string;
  readonly principal: Principal;
  /** Administrators and the instance token: everything is allowed, nothing is filtered. */
  readonly admin: boolean;
  /** The rules that reach the principal (empty for administrators, who need none). */
  readonly grants: Grants;
  /** Whether some rule allows `action` on `collection` (on some rows, with some fields). */
  can(action: string, collection: string): boolean;
  /** A capability that is not about rows: `media:create`, `cdc:subscribe`, `review:<domain>`, site-wide `read_decrypted`. */
  hasCapability(name: string): boolean;
  /** The union of the matching rules' field lists (`*` = all); no rule: no field. */
  allowedFields(action: string, collection: string): FieldAllowance;
  /** The rows `action` may reach: the OR of the matching rules' conditions (constant false without a rule). */
  rowFilter(action: string, collection: string): FilterNode;
  /** rowFilter compiled to SQL over the items table aliased `alias` (`TRUE` when every row is reachable). */
  /** `table`: where relational conditions read related rows (default the live items table). */
  rowFilterSql(action: string, collection: string, alias: string, table?: SqlFragment): SqlFragment;
  /** The rules that allow `action` on `collection` (or the capability `action` when collection is null). */
  rules(action: string, collection: string | null): readonly GrantedRule[];
  /** One rule's conditions, resolved for this principal (constant true without conditions). */
  ruleFilter(rule: GrantedRule, collection: string): FilterNode;
}

export const EVERY_FIELD: FieldAllowance = { all: true, fields: new Set(), has: () => true };
const NO_FIELD: FieldAllowance = { all: false, fields: new Set(), has: () => false };
const TRUE: FilterNode = { kind: 'constant', value: true };
const FALSE: FilterNode = { kind: 'constant', value: false };
const NO_GRANTS: Grants = { roleChain: [], roleId: null, teamIds: [], rules: [] };

interface Compiled {
  rules: readonly GrantedRule[];
  fields: FieldAllowance;
  /** Resolved row filter for one schema version; absent while conditions use $NOW (resolved per request). */
  filter?: { schema: SiteSchema; node: FilterNode; sql: Map<string, SqlFragment> };
}

/** Per grants object (one per principal and site until an access change): what each action compiles to. */
const compiledByGrants = new WeakMap<Grants, Map<string, Compiled>>();

function subjectOf(principal: Principal): Subject | null {
  if (principal.kind === 'anonymous') return { userId: null, roleId: null, anonymous: true };
  if (principal.kind === 'user') return { userId: principal.userId, roleId: principal.roleId, anonymous: false };
  return null;
}

function isAdministrator(principal: Principal): boolean {
  return principal.kind === 'instance' || isSiteAdmin(principal);
}

function ruleMatches(rule: GrantedRule, action: string, collection: string | null): boolean {
  if (rule.action !== action) return false;
  // A capability granted without a collection (site-wide read_decrypted) holds for every collection.
  return rule.collection === collection || (rule.collection === null && !isItemAction(action));
}

function fieldAllowance(rules: readonly GrantedRule[]): FieldAllowance {
  if (rules.length === 0) return NO_FIELD;
  const fields = new Set<string>();
  for (const rule of rules) {
    if (rule.collection === null || rule.fields.includes(ALL_FIELDS)) return EVERY_FIELD;
    for (const field of rule.fields) fields.add(field);
  }
  return { all: false, fields, has: (field) => fields.has(field) };
}

/** Whether rule conditions use $NOW: what they let through can change with the clock alone. */
export const usesNow = (conditions: unknown) => JSON.stringify(conditions).toUpperCase().includes('$NOW');

export interface AccessOptions {
  /** The time $NOW stands for; default now. */
  now?: Date;
}

type AccessContext = Pick<AppContext, 'database' | 'schemas' | 'grants' | 'logger'>;

/** What `principal` may do in `siteId` (effective grants from this instance's cache). */
export function accessFor(context: AccessContext, siteId: string, principal: Principal, options: AccessOptions = {}): Promise<Access> {
  const subject = subjectOf(principal);
  const admin = isAdministrator(principal) || subject === null;
  return buildAccess(context, siteId, principal, admin ? null : subject, options);
}

/**
 * What a stored user or role may do (POST /permissions/check on behalf of someone else): the user
 * with its role, or the role alone (no user: `$CURRENT_USER` matches nothing).
 */
export function accessForSubject(
  context: AccessContext,
  siteId: string,
  target: { userId: string | null; roleId: string | null; admin: boolean },
  options: AccessOptions = {},
): Promise<Access> {
  const principal: Principal = {
    kind: 'user',
    userId: target.userId ?? '',
    roleId: target.roleId,
    admin: target.admin,
    sessionId: null,
    via: 'session',
    realm: 'studio',
  };
  return buildAccess(context, siteId, principal, target.admin ? null : { userId: target.userId, roleId: target.roleId, anonymous: false }, options);
}

async function buildAccess(context: AccessContext, siteId: string, principal: Principal, subject: Subject | null, options: AccessOptions): Promise<Access> {
  const admin = subject === null;
  const grants = subject === null ? NO_GRANTS : await context.grants.grantsOf(siteId, subject);
  // The schema is needed only to resolve conditions; most principals' rules have none.
  const schema = !admin && grants.rules.some((rule) => rule.conditions !== null) ? await context.schemas.site(siteId) : null;
  const now = options.now ?? new Date();
  let memo = compiledByGrants.get(grants);
  if (!memo) compiledByGrants.set(grants, (memo = new Map()));
  const compiledMemo = memo;
  const userId = subject?.userId ?? null;

  function compiled(action: string, collection: string | null): Compiled {
    const key = `${action}\u0000${collection ?? ''}`;
    let entry = compiledMemo.get(key);
    if (!entry) {
      const rules = grants.rules.filter((rule) => ruleMatches(rule, action, collection));
      entry = { rules, fields: fieldAllowance(rules) };
      compiledMemo.set(key, entry);
    }
    return entry;
  }

  function resolveRule(rule: GrantedRule, collection: string): FilterNode {
    if (rule.conditions === null) return TRUE;
    const collectionSchema = schema?.collections.get(collection);
    if (!schema || !collectionSchema) return FALSE;
    try {
      return resolveFilter(rule.conditions, {
        fields: collectionSchema.queryFields,
        resolveFields: schema.resolveFields,
        now,
        userId,
        roleId: grants.roleId,
        path: ['conditions'],
      });
    } catch (error) {
      // The schema changed under the rule (a field it names is gone): the rule reaches no row.
      context.logger.warn({ siteId, permissionId: rule.permissionId, err: error }, 'permission rule conditions no longer resolve; the rule matches nothing');
      return FALSE;
    }
  }

  function rowFilterOf(action: string, collection: string): { node: FilterNode; cached: Compiled['filter'] | null } {
    if (admin) return { node: TRUE, cached: null };
    const entry = compiled(action, collection);
    if (entry.rules.length === 0) return { node: FALSE, cached: null };
    if (entry.rules.some((rule) => rule.conditions === null)) return { node: TRUE, cached: null };
    if (entry.filter && entry.filter.schema === schema) return { node: entry.filter.node, cached: entry.filter };
    const children = entry.rules.map((rule) => resolveRule(rule, collection));
    const node: FilterNode = children.length === 1 ? children[0]! : { kind: 'or', children };
    if (schema && !entry.rules.some((rule) => usesNow(rule.conditions))) {
      entry.filter = { schema, node, sql: new Map() };
      return { node, cached: entry.filter };
    }
    return { node, cached: null };
  }

  return {
    siteId,
    principal,
    admin,
    grants,
    can: (action, collection) => admin || compiled(action, collection).rules.length > 0,
    hasCapability: (name) => admin || compiled(name, null).rules.length > 0,
    allowedFields: (action, collection) => (admin ? EVERY_FIELD : compiled(action, collection).fields),
    rowFilter: (action, collection) => rowFilterOf(action, collection).node,
    rowFilterSql(action, collection, alias, table) {
      const { node, cached } = rowFilterOf(action, collection);
      if (node.kind === 'constant') return raw(node.value ? 'TRUE' : 'FALSE');
      // Kept for the live table only: another table may carry per-request parameters (a moment).
      if (table && table !== ITEMS_TABLE) return compileFilterNode(node, alias, table);
      const hit = cached?.sql.get(alias);
      if (hit) return hit;
      const fragment = compileFilterNode(node, alias);
      cached?.sql.set(alias, fragment);
      return fragment;
    },
    rules: (action, collection) => (admin ? [] : compiled(action, collection).rules),
    ruleFilter: (rule, collection) => resolveRule(rule, collection),
  };
}
