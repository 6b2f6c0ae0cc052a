// The host side of an extension's API (docs/extensions.md, "The capability API"): each call the
// sandbox sends is checked against the extension's grants here, then served through the service's own
// command registry (`items.list`, `items.read`: the items read path, with the caller's permissions).
// Nothing the sandbox says is trusted: the method, the arguments and their sizes are checked first.
import { mayCall, requiredCapability, type CapabilityCall } from '../../../domain/extensions/capabilities.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { type SandboxCall, SandboxCallError } from '../../../infra/extensions/sandbox.ts';
import type { CommandRunOptions } from '../../runtime/commandRegistry.ts';
import type { AppContext } from '../../runtime/context.ts';
import { touchedCollections } from '../ai/touchedCollections.ts';

/** Log lines one run keeps (the rest are counted, not kept), and the length of each. */
export const MAX_LOG_LINES = 100;
export const MAX_LOG_CHARACTERS = 2_000;

export interface RunLog {
  level: 'info';
  message: string;
}

interface Extension {
  id: string;
  granted: readonly string[];
}

const invalid = (message: string) => new SandboxCallError('VALIDATION_FAILED', message);

/** What a query of the API may say: no `deep`, `alias` or other reach beyond these. */
const QUERY_KEYS = new Set(['filter', 'sort', 'fields', 'limit', 'offset', 'page', 'search']);

/** The query with `fields` and `sort` as lists (a comma-separated text is split), or a refusal of an unknown key. */
function checkedQuery(method: string, query: unknown): Record<string, unknown> {
  if (query === undefined) return {};
  if (!isObject(query)) throw invalid(`${method} takes a query object (filter, sort, fields${method === 'items.list' ? ', limit, offset' : ''})`);
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (!QUERY_KEYS.has(key)) throw invalid(`${method} takes no "${key}" in its query (only ${[...QUERY_KEYS].join(', ')})`);
    checked[key] = (key === 'fields' || key === 'sort') && typeof value === 'string' ? value.split(',').map((entry) => entry.trim()) : value;
  }
  return checked;
}
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The call as the capability rules see it, with its checked arguments. */
function parseCall({ method, args }: SandboxCall): { capability: CapabilityCall; args: unknown[] } {
  if (method === 'log') {
    if (!args.every((value) => typeof value === 'string')) throw invalid('log takes strings');
    return { capability: { method }, args };
  }
  if (method === 'items.list' || method === 'items.read') {
    const [collection, ...rest] = args;
    if (typeof collection !== 'string' || collection.length === 0 || collection.length > 64) throw invalid(`${method} takes a collection name first`);
    if (method === 'items.read' && (typeof rest[0] !== 'string' || rest[0].length > 128)) throw invalid('items.read takes an item id second');
    const query = checkedQuery(method, method === 'items.read' ? rest[1] : rest[0]);
    return { capability: { method, collection }, args: method === 'items.read' ? [collection, rest[0], query] : [collection, query] };
  }
  throw new SandboxCallError('UNKNOWN_METHOD', `"${method}" is not a method of the extension API`);
}

/** The answer to each call of one run, as `caller` (the principal who ran it) with the extension's grants. */
export function capabilityHandler(context: AppContext, caller: CommandRunOptions, extension: Extension, logs: RunLog[]): (call: SandboxCall) => Promise<unknown> {
  let dropped = 0;
  return async (call) => {
    const { capability, args } = parseCall(call);
    if (!mayCall(extension.granted, capability)) {
      throw new SandboxCallError('CAPABILITY_DENIED', `This extension has not been granted "${requiredCapability(capability)}"`);
    }
    if (capability.method === 'log') {
      const message = (args as string[]).join(' ').slice(0, MAX_LOG_CHARACTERS);
      if (logs.length < MAX_LOG_LINES) logs.push({ level: 'info', message });
      else dropped += 1;
      context.logger.info({ siteId: caller.siteId, extensionId: extension.id, dropped }, `extension log: ${message}`);
      return null;
    }
    // A relation path in fields, sort or filter reads the collections it crosses: each needs its grant too.
    const query = (capability.method === 'items.list' ? args[1] : args[2]) as Record<string, unknown>;
    const touched = touchedCollections(await context.schemas.site(caller.siteId), 'items.list', { ...query, collection: capability.collection });
    const ungranted = touched === 'all' ? 'a relation to any collection' : touched.find((collection) => !mayCall(extension.granted, { method: capability.method, collection }));
    if (ungranted !== undefined) {
      throw new SandboxCallError('CAPABILITY_DENIED', `The query reaches ${touched === 'all' ? ungranted : `"${ungranted}"`}, which this extension has not been granted`);
    }
    try {
      if (capability.method === 'items.list') {
        return await context.commands.run('items.list', { ...query, collection: capability.collection }, caller);
      }
      const { item } = await context.commands.run<{ item: Record<string, unknown> }>('items.read', { ...query, collection: capability.collection, id: args[1] }, caller);
      return item;
    } catch (error) {
      if (error instanceof AppError) throw new SandboxCallError(error.code, error.message);
      throw error;
    }
  };
}
