// Checks a permission rule against the site's schema before it is saved: the collection exists, the
// fields it lists are fields of that collection, and its conditions are a filter the query language
// accepts on that collection (errors keep the compiler's path under ['body', 'conditions']).
import { normalizeRule, type PermissionRule } from '../../../domain/access/permissionRule.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { lookupField } from '../../query/fieldExpressions.ts';
import { resolveFilter, type FilterNode } from '../../query/index.ts';
import type { SiteSchema } from '../../schema/schemaCache.ts';

export interface RuleInput {
  collection?: string | null;
  action: string;
  fields?: string[] | null;
  conditions?: Record<string, unknown> | null;
}

/** Keys an item shows besides its declared fields. */
const ITEM_KEYS = new Set(['deletedAt']);
// Stand-ins for $CURRENT_USER / $CURRENT_ROLE while validating: the real ids are known per request.
const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

function invalid(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['body', ...path] });
}

function hasRelation(node: FilterNode): boolean {
  if (node.kind === 'relation') return true;
  if (node.kind === 'and' || node.kind === 'or') return node.children.some(hasRelation);
  return false;
}

export function validateRule(input: RuleInput, schema: SiteSchema, now: Date): PermissionRule {
  const rule = normalizeRule(input);
  if (rule.collection === null) return rule;
  const collection = schema.collections.get(rule.collection);
  if (!collection) throw invalid(`Unknown collection "${rule.collection}"`, ['collection']);
  (input.fields ?? []).forEach((field, index) => {
    if (field !== '*' && !lookupField(collection.queryFields, field) && !ITEM_KEYS.has(field)) {
      throw invalid(`Unknown field "${field}" of "${rule.collection}"`, ['fields', index]);
    }
  });
  if (rule.conditions !== null) {
    const node = resolveFilter(rule.conditions, {
      fields: collection.queryFields,
      resolveFields: schema.resolveFields,
      now,
      userId: SAMPLE_ID,
      roleId: SAMPLE_ID,
      path: ['body', 'conditions'],
    });
    // A new item is checked in memory before it exists, with no related rows at hand.
    if (rule.action === 'create' && hasRelation(node)) {
      throw invalid('Conditions of a create rule cannot reach into related collections', ['conditions']);
    }
  }
  return rule;
}
