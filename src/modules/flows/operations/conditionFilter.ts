// The condition operation's filter: the service's one filter language (src/query) over the run's data.
// Each root of the data ($trigger, $last, $steps, $flow, $run) is a JSON field, so a key is a root
// (`"$trigger": { "_json_contains": {...} }`) or a dotted path into one (`"$trigger.item.status":
// { "_eq": "published" }`), evaluated in memory with the semantics of the items' JSON fields. Field
// names of the language cannot start with `$`: the roots are resolved without it, and error paths
// given back with it.
import { AppError } from '../../../../domain/shared/appError.ts';
import { evaluateFilterNode, resolveFilter, type DynamicValueContext, type FieldMap, type FilterNode, type ItemRecord } from '../../../query/index.ts';
import type { FlowRunData } from '../operation.ts';

const ROOTS = ['trigger', 'last', 'steps', 'flow', 'run'] as const;
type Root = (typeof ROOTS)[number];

const FIELDS: FieldMap = new Map(ROOTS.map((root) => [root, { field: root, type: 'json' as const }]));
/** Deeper than the language's own nesting limit (24): past it the filter is left for resolveFilter to refuse. */
const MAX_WALK = 32;
const ROOT_SEGMENT = new RegExp(`^(${ROOTS.join('|')})(\\.|$)`);

type ErrorPath = (string | number)[];

function isRoot(name: string): name is Root {
  return (ROOTS as readonly string[]).includes(name);
}

function unknownKey(key: string, path: ErrorPath): AppError {
  return new AppError('VALIDATION_FAILED', `Unknown field "${key}": a condition filters the run's data, so each key starts with $trigger, $last, $steps, $flow or $run`, { path });
}

/** The filter with its `$root…` keys written as the language's field names (`trigger…`). */
function withRootNames(group: unknown, path: ErrorPath, depth: number): unknown {
  if (typeof group !== 'object' || group === null || Array.isArray(group) || depth > MAX_WALK) return group;
  return Object.fromEntries(
    Object.entries(group).map(([key, value]) => {
      if ((key === '_and' || key === '_or') && Array.isArray(value)) {
        return [key, value.map((member, index) => withRootNames(member, [...path, key, index], depth + 1))];
      }
      if (key.startsWith('_')) return [key, value]; // an operator out of place: resolveFilter says so
      if (!key.startsWith('$') || !isRoot(key.slice(1).split('.')[0]!)) throw unknownKey(key, [...path, key]);
      return [key.slice(1), value];
    }),
  );
}

/** An error path of the rewritten filter, as the caller wrote it (`trigger.item` → `$trigger.item`). */
function writtenPath(path: ErrorPath): ErrorPath {
  return path.map((segment) => (typeof segment === 'string' && ROOT_SEGMENT.test(segment) ? `$${segment}` : segment));
}

/**
 * The validated filter (dynamic values such as `$CURRENT_USER` and `$NOW` substituted), or 400
 * `VALIDATION_FAILED` at `path` + the offending key, written as the caller wrote it.
 */
export function resolveConditionFilter(filter: unknown, dynamic: DynamicValueContext, path: ErrorPath = ['filter']): FilterNode {
  const named = withRootNames(filter, path, 0);
  try {
    return resolveFilter(named, { ...dynamic, fields: FIELDS, path });
  } catch (error) {
    if (error instanceof AppError) throw error.at(writtenPath(error.path));
    throw error;
  }
}

/** The run's data as the record the filter reads (its roots as fields). */
export function conditionRecord(data: FlowRunData): ItemRecord {
  return { trigger: data.$trigger, last: data.$last, steps: data.$steps, flow: data.$flow, run: data.$run };
}

export function conditionPasses(node: FilterNode, data: FlowRunData): boolean {
  return evaluateFilterNode(node, conditionRecord(data));
}
