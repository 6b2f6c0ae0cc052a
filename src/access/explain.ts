// Explanations of an Access for people: the effective permission matrix of a principal
// (GET /permissions/me) and why one action on one collection (or item) is allowed or not
// (POST /permissions/check).
import { CAPABILITIES, ITEM_ACTIONS, isItemAction } from '../../domain/access/permissionRule.ts';
import { errors } from '../../domain/shared/appError.ts';
import type { Queryable } from '../../infra/postgres/database.ts';
import { join, raw, sql } from '../../infra/postgres/sql.ts';
import { compileFilterNode } from '../query/index.ts';
import type { Access } from './access.ts';
import type { GrantedRule, GrantSource } from './grants.ts';

export interface ActionPermission {
  allowed: boolean;
  /** `['*']` for every field. */
  fields: string[];
  /** The rows reached: null for every row, one rule's conditions, or `{ _or: [...] }` of several. */
  conditions: Record<string, unknown> | null;
}

export interface PermissionMatrix {
  admin: boolean;
  roleChain: readonly string[];
  teams: readonly string[];
  collections: Record<string, Record<(typeof ITEM_ACTIONS)[number], ActionPermission>>;
  capabilities: string[];
}

function actionPermission(access: Access, action: string, collection: string): ActionPermission {
  if (access.admin) return { allowed: true, fields: ['*'], conditions: null };
  const rules = access.rules(action, collection);
  if (rules.length === 0) return { allowed: false, fields: [], conditions: null };
  const allowance = access.allowedFields(action, collection);
  return { allowed: true, fields: allowance.all ? ['*'] : [...allowance.fields].sort(), conditions: combinedConditions(rules) };
}

function combinedConditions(rules: readonly GrantedRule[]): Record<string, unknown> | null {
  if (rules.some((rule) => rule.conditions === null)) return null;
  const distinct = [...new Map(rules.map((rule) => [JSON.stringify(rule.conditions), rule.conditions!])).values()];
  return distinct.length === 1 ? distinct[0]! : { _or: distinct };
}

/**
 * The matrix over `collections` (the site's collections). Non-administrators see only collections
 * they may do something with, so that the matrix does not list the whole schema to everyone.
 */
export function permissionMatrix(access: Access, collections: readonly string[]): PermissionMatrix {
  const matrix: PermissionMatrix['collections'] = {};
  for (const collection of collections) {
    const actions = Object.fromEntries(ITEM_ACTIONS.map((action) => [action, actionPermission(access, action, collection)])) as PermissionMatrix['collections'][string];
    if (access.admin || Object.values(actions).some((permission) => permission.allowed)) matrix[collection] = actions;
  }
  const capabilities = access.admin
    ? [...CAPABILITIES]
    : [...new Set(access.grants.rules.filter((rule) => !isItemAction(rule.action) && rule.collection === null).map((rule) => rule.action))].sort();
  return { admin: access.admin, roleChain: access.grants.roleChain, teams: access.grants.teamIds, collections: matrix, capabilities };
}

export interface RuleExplanation {
  policyId: string | null;
  policyName: string;
  permissionId: string | null;
  via: GrantSource;
  fields: readonly string[];
  conditions: Record<string, unknown> | null;
  /** With an item: whether the rule's conditions hold for it. */
  matchesItem?: boolean;
}

export interface Decision {
  allowed: boolean;
  reason: 'admin' | 'rule' | 'no_rule' | 'conditions_not_met';
  message: string;
  /** The rules that allowed it (with an item: the rules whose conditions hold for it). */
  allowedBy: RuleExplanation[];
  /** Every rule for this action and collection, matching the item or not. */
  rules: RuleExplanation[];
  fields: string[];
  conditions: Record<string, unknown> | null;
}

const explained = (rule: GrantedRule, matchesItem?: boolean): RuleExplanation => ({
  policyId: rule.policyId,
  policyName: rule.policyName,
  permissionId: rule.permissionId,
  via: rule.via,
  fields: rule.fields,
  conditions: rule.conditions,
  ...(matchesItem === undefined ? {} : { matchesItem }),
});

/**
 * Why `access` may or may not do `action` on `collection` (a capability when collection is null),
 * and on one item when `itemId` is given. An item that does not exist, or that the principal can
 * neither see nor act on, answers 404 RECORD_NOT_FOUND (`revealItems` false: the caller asks about
 * itself and must not learn of rows it cannot see).
 */
export async function explainDecision(
  tx: Queryable,
  access: Access,
  input: { action: string; collection: string | null; itemId?: string; revealItems: boolean },
): Promise<Decision> {
  const { action, collection, itemId } = input;
  const target = collection === null ? `the capability "${action}"` : `${action} on "${collection}"${itemId ? ` item ${itemId}` : ''}`;
  const permission = collection === null ? null : actionPermission(access, action, collection);
  const shape = { fields: permission?.fields ?? [], conditions: permission?.conditions ?? null };
  if (itemId !== undefined && collection !== null) {
    const rules = access.rules(action, collection);
    const columns = [
      ...rules.map((rule, index) => sql`${compileFilterNode(access.ruleFilter(rule, collection), 'i')} AS ${raw(`r${index}`)}`),
      sql`${access.rowFilterSql('read', collection, 'i')} AS visible`,
    ];
    const [row] = await tx.query<Record<string, boolean>>(sql`
      SELECT ${join(columns)} FROM items i
       WHERE i.site_id = ${access.siteId} AND i.collection = ${collection} AND i.id = ${itemId} AND i.deleted_at IS NULL`);
    const matches = rules.map((_, index) => row?.[`r${index}`] === true);
    if (!row || (!input.revealItems && !access.admin && !row.visible && !matches.some(Boolean))) throw errors.recordNotFound();
    if (access.admin) return { allowed: true, reason: 'admin', message: `Administrators may do ${target}`, allowedBy: [], rules: [], ...shape };
    const all = rules.map((rule, index) => explained(rule, matches[index]));
    const allowedBy = all.filter((rule) => rule.matchesItem);
    if (allowedBy.length > 0) {
      return { allowed: true, reason: 'rule', message: `Allowed by ${describe(allowedBy)}`, allowedBy, rules: all, ...shape };
    }
    return {
      allowed: false,
      reason: rules.length === 0 ? 'no_rule' : 'conditions_not_met',
      message: rules.length === 0 ? `No rule allows ${target}` : `Rules allow ${action} on "${collection}", but the conditions of none hold for this item`,
      allowedBy: [],
      rules: all,
      ...shape,
    };
  }
  if (access.admin) return { allowed: true, reason: 'admin', message: `Administrators may do ${target}`, allowedBy: [], rules: [], ...shape };
  const rules = access.rules(action, collection).map((rule) => explained(rule));
  if (rules.length === 0) return { allowed: false, reason: 'no_rule', message: `No rule allows ${target}`, allowedBy: [], rules, ...shape };
  return { allowed: true, reason: 'rule', message: `Allowed by ${describe(rules)}`, allowedBy: rules, rules, ...shape };
}

function describe(rules: RuleExplanation[]): string {
  return rules
    .map((rule) =>
      rule.via.kind === 'subscriberAccess'
        ? `the subscriber access grant (subscriber role ${rule.via.id})`
        : `rule ${rule.permissionId} of policy "${rule.policyName}" (attached to ${rule.via.kind} ${rule.via.id})`,
    )
    .join('; ');
}
