// What a permission rule of a policy may say: an item action on a collection (`create`, `read`,
// `update`, `delete`) with the fields it covers and the rows it reaches (a filter tree), or a
// capability that is not about rows (`media:create`, `cdc:subscribe`, `review:<domain>`, ...), which
// has no collection. `read_decrypted` governs decryption of encrypted fields: site-wide without a
// collection, or for one collection (and its listed fields).
import { AppError } from '../shared/appError.ts';

export const ITEM_ACTIONS = ['create', 'read', 'update', 'delete'] as const;
export type ItemAction = (typeof ITEM_ACTIONS)[number];

export const READ_DECRYPTED = 'read_decrypted';

/** Capabilities with a fixed name; `review:<domain>` names one per editorial domain. */
export const CAPABILITIES: readonly string[] = [
  'media:create',
  'media:read',
  'media:update',
  'media:delete',
  'cdc:subscribe',
  /** Publish and revert releases (their items still go through the holder's update rules); site administrators hold it. */
  'releases:publish',
  /** Read a site's pageview statistics (GET /pageviews/stats); site administrators hold it. */
  'pageviews:read',
  /** Stop agents with the kill switch (docs/agents.md); lifting a freeze also needs a person. */
  'agents:freeze',
  /** Raise an agent incident, which reaches every session and browser of the site (docs/agent-goals.md). */
  'agents:incident',
  READ_DECRYPTED,
];
const REVIEW_CAPABILITY = /^review:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `*` in a rule's field list: every field of the collection. */
export const ALL_FIELDS = '*';
export const MAX_RULE_FIELDS = 500;

export interface PermissionRule {
  /** null for capabilities. */
  collection: string | null;
  action: string;
  /** Field names, or ['*']; empty for capabilities. */
  fields: string[];
  /** A filter tree over the collection's items; null = every row. */
  conditions: Record<string, unknown> | null;
}

export function isItemAction(action: string): action is ItemAction {
  return (ITEM_ACTIONS as readonly string[]).includes(action);
}

export function isCapability(action: string): boolean {
  return CAPABILITIES.includes(action) || REVIEW_CAPABILITY.test(action);
}

function invalid(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['body', ...path] });
}

/**
 * Checks the shape of a rule that does not need the site's schema, and normalises its field list
 * (duplicates dropped, `*` alone when present). Field names and conditions are checked against the
 * collection's fields by the caller.
 */
export function normalizeRule(input: { collection?: string | null; action: string; fields?: string[] | null; conditions?: Record<string, unknown> | null }): PermissionRule {
  const { action } = input;
  const collection = input.collection ?? null;
  if (isItemAction(action)) {
    if (collection === null) throw invalid(`Action "${action}" needs a collection`, ['collection']);
  } else if (!isCapability(action)) {
    throw invalid(
      `Unknown action "${action}": use create, read, update or delete on a collection, or a capability (${CAPABILITIES.join(', ')}, review:<domain>)`,
      ['action'],
    );
  } else if (collection !== null && action !== READ_DECRYPTED) {
    throw invalid(`"${action}" is a capability; it takes no collection (send collection null)`, ['collection']);
  }
  // Item actions and a collection's read_decrypted reach rows and fields; other capabilities do not.
  const rowScoped = collection !== null;
  if (!rowScoped) {
    if (input.conditions) throw invalid(`"${action}" takes no conditions`, ['conditions']);
    if (input.fields && input.fields.length > 0) throw invalid(`"${action}" takes no fields`, ['fields']);
    return { collection, action, fields: [], conditions: null };
  }
  const requested = input.fields ?? [ALL_FIELDS];
  if (requested.length > MAX_RULE_FIELDS) throw invalid(`At most ${MAX_RULE_FIELDS} fields per rule`, ['fields']);
  const fields = requested.includes(ALL_FIELDS) ? [ALL_FIELDS] : [...new Set(requested)];
  const conditions = input.conditions && Object.keys(input.conditions).length > 0 ? input.conditions : null;
  return { collection, action, fields, conditions };
}
