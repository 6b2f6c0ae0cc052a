// The swagger `transform`: one route becomes one documented operation. The route's zod schemas are
// converted (documentSchemas.ts); its catalogue entry adds the summary, the rules, the success
// answer and the error codes (operations/). Nothing here changes what a route validates or
// serializes: the route's own schemas are read, never replaced.
import type { FastifySchema, RouteOptions } from 'fastify';
import type { AccessLevel } from '../routeConfig.ts';
import { successEnvelope } from './components.ts';
import type { JsonSchema, SchemaConverter } from './documentSchemas.ts';
import { errorCodesOf, errorResponses, type RouteFacts } from './errorResponses.ts';
import type { OperationCatalogue, OperationEntry, SuccessResponse } from './operationEntry.ts';

const API_PREFIX = '/api/v1';
const SUCCESS_DESCRIPTION = 'Success: the spec’s envelope `{ data, meta? }`.';
/** A wildcard's value gets this name in the document (`/deliver/page/*` → `/deliver/page/{path}`). */
const WILDCARD_PARAMETER = 'path';

const ACCESS_RULES: Record<AccessLevel, string> = {
  public: 'Public: no credentials needed.',
  bearer: 'Needs a bearer token of the site: a session’s access token, an identity provider’s token or an API key (`svk_…`).',
  user: 'Needs a signed-in user, or an API key bound to one (not a key bound to a role).',
  person: 'Needs a user signed in as themselves (a session or an identity provider’s token), not an API key.',
  siteAdmin: 'Needs a site administrator (their API keys included).',
  personAdmin: 'Needs a site administrator signed in as themselves, not an API key (a step-up action).',
  instance: 'Needs the instance token (`SVC_INSTANCE_TOKEN`); acts on no site.',
};

/** The catalogue key of a route: its method and its path under /api/v1, parameters as `{name}`. */
export function operationKey(method: string, url: string): string {
  const path = url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) || '/' : url;
  return `${method} ${path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, `{${WILDCARD_PARAMETER}}`)}`;
}

export function createOperationTransform(catalogue: OperationCatalogue, schemas: SchemaConverter) {
  return ({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } => {
    const source = (schema ?? {}) as Record<string, unknown>;
    if (source.hide) return { schema: { hide: true } as FastifySchema, url };
    const method = Array.isArray(route.method) ? route.method[0]! : route.method;
    const entry: OperationEntry | undefined = catalogue[operationKey(method, url)];
    const wildcard = url.endsWith('*');
    const documentedUrl = wildcard ? `${url.slice(0, -1)}:${WILDCARD_PARAMETER}` : url;

    const documented: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(source)) {
      if (!['querystring', 'body', 'params', 'headers', 'response'].includes(key)) documented[key] = value;
    }
    for (const part of ['querystring', 'body', 'params', 'headers'] as const) {
      if (source[part]) documented[part] = schemas.convert(source[part] as JsonSchema, 'input');
    }
    if (entry?.query && !source.querystring) documented.querystring = schemas.convert(entry.query, 'input');
    if (wildcard && !source.params) {
      documented.params = {
        type: 'object',
        required: [WILDCARD_PARAMETER],
        properties: { [WILDCARD_PARAMETER]: { type: 'string', description: 'The rest of the path (it may hold slashes).' } },
      };
    }

    const config = route.config ?? {};
    const facts: RouteFacts = {
      access: config.access ?? 'public',
      site: config.site,
      capability: config.capability,
      rateLimited: config.rateLimit !== undefined,
      hasBody: Boolean(source.body),
      hasPathParameters: /[:*]/.test(url),
    };
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries((source.response ?? {}) as Record<string, JsonSchema>)) {
      // The route's own schema (what it serializes), described as the catalogue says.
      const description = entry?.response?.description ?? (status.startsWith('2') ? SUCCESS_DESCRIPTION : `Answer ${status}`);
      responses[status] = { description, content: { 'application/json': { schema: schemas.convert(response, 'output') } } };
    }
    if (entry) {
      if (entry.response && !Object.keys(responses).some((status) => status.startsWith('2'))) Object.assign(responses, successResponse(entry.response, schemas));
      Object.assign(responses, errorResponses(errorCodesOf(facts, entry), entry.unprocessable ?? false));
      documented.summary = entry.summary;
      documented.description = [entry.description, rulesOf(facts)].filter(Boolean).join('\n\n');
    }
    documented.response = responses;
    documented.operationId = operationIdOf(method, url);
    documented.security = securityOf(facts);
    return { schema: documented as FastifySchema, url: documentedUrl };
  };
}

function successResponse(response: SuccessResponse, schemas: SchemaConverter): Record<string, unknown> {
  if ('data' in response) {
    const data = schemas.convert(response.data, 'output');
    const meta = response.meta === undefined ? undefined : schemas.convert(response.meta, 'output');
    return {
      [String(response.status ?? 200)]: {
        description: response.description ?? SUCCESS_DESCRIPTION,
        content: { 'application/json': { schema: successEnvelope(data, meta) } },
      },
    };
  }
  if (response.contentType === undefined) {
    return { [String(response.status)]: { type: 'null', description: response.description } };
  }
  const raw = response.raw === undefined ? { type: 'string' } : schemas.convert(response.raw, 'output');
  return { [String(response.status)]: { description: response.description, content: { [response.contentType]: { schema: raw } } } };
}

function rulesOf(facts: RouteFacts): string {
  const rules = [ACCESS_RULES[facts.access]];
  if (facts.capability) rules.push(`Needs the \`${facts.capability}\` capability (administrators hold every capability).`);
  if (facts.site === 'required') rules.push('Acts in the site named by `X-Svc-Site` (or resolved from the host); another site’s ids are 404.');
  if (facts.rateLimited) rules.push('Rate-limited: 429 `RATE_LIMITED` with `Retry-After` past the limit.');
  return rules.join(' ');
}

function securityOf(facts: RouteFacts): Record<string, string[]>[] {
  if (facts.access === 'instance') return [{ bearer: [] }];
  if (facts.access === 'public') return facts.site === 'required' ? [{ site: [] }] : [];
  return facts.site === 'required' ? [{ bearer: [], site: [] }] : [{ bearer: [] }];
}

/** `GET /api/v1/items/:collection/:id` → `getItemsCollectionId`: unique, since method and path are. */
function operationIdOf(method: string, url: string): string {
  const words = url
    .slice(url.startsWith(API_PREFIX) ? API_PREFIX.length : 0)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('') + (url.endsWith('*') ? 'Path' : '');
}
