// Site B's administrator, sent site A's ids on every route of the OpenAPI document, reads, changes,
// counts and lists nothing of A. Site A holds one resource of every kind a path names
// (test/support/siteResources.ts); the route list comes from the running service's own document, so
// a route added later is swept too, and a path parameter A has nothing for gets a random UUID. A's
// own administrator reading the same routes is the control: the sweep would see a leak.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUuid } from '../../domain/shared/uuid.ts';
import { TRUSTED_KEYS } from '../modules/extensions/support.ts';
import { envelopeError, isDegradedMode, isHtmlPage } from '../support/apiAnswers.ts';
import { createFreshDatabaseForFile } from '../support/databases.ts';
import { startGitHostServer } from '../support/gitHostServers.ts';
import { exampleFor, fetchOpenApiDocument, fillPath, listOperations, resolveSchema, typesOf, type Operation } from '../support/openapiOperations.ts';
import { hashText, seededRandom } from '../support/seededRandom.ts';
import { BODY_REFERENCES, createSiteResources, pathValue, type SiteResources } from '../support/siteResources.ts';
import { siteEventCount, siteEventsAfter, siteLogPosition } from '../support/siteEventLog.ts';
import { createTestSite, startTestServiceForFile, type TestResponse, type TestSite } from '../support/testService.ts';

const NOWHERE = 'http://127.0.0.1:9';
const gitHost = await startGitHostServer();
afterAll(() => gitHost.close());
// A database of the file's own: the cloud-sync and git reactors lead across every service on a
// database, and another file's service must not act on this file's pipeline or integration.
const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({
  DATABASE_URL: database.url,
  SVC_EXTENSION_TRUSTED_KEYS: TRUSTED_KEYS,
  SVC_GIT_GITHUB_API_URL: gitHost.github.baseUrl,
  SVC_GIT_GITHUB_URL: gitHost.origin,
  SVC_GIT_GITLAB_URL: gitHost.gitlab.host,
  SVC_CLOUD_SYNC_FIRESTORE_URL: NOWHERE,
  SVC_CLOUD_SYNC_TOKEN_URL: NOWHERE,
  SVC_MCP_ENABLED: 'true',
  // B signs in again when a swept request ended its session (DELETE /me/sessions does).
  SVC_RATE_LIMIT_AUTH: '0',
});
const document = await fetchOpenApiDocument(service);
// Reads first: a write of B's (a collection of B's own named like A's) must not be read back as A's.
const operations = listOperations(document).sort((left, right) => Number(left.method !== 'GET') - Number(right.method !== 'GET'));

/**
 * Path parameters that name a site on public, per-site routes: addressing another site there is the
 * route's purpose (a beacon, a site's llms.txt), not a way into it. B sends its own site.
 */
const OWN_SITE_PARAMETERS: Record<string, string> = {
  'POST /api/v1/pageviews/{site_id}/hit': 'the public pageview beacon of the site it names',
  'GET /api/v1/deliver/llms.txt/{site_id}': 'the public llms.txt of the site it names',
};

let siteA: TestSite;
let siteB: TestSite;
let resourcesA: SiteResources;
let resourcesB: SiteResources;

beforeAll(async () => {
  [siteA, siteB] = await Promise.all([createTestSite(service, 'sweep-a'), createTestSite(service, 'sweep-b')]);
  resourcesA = await createSiteResources(service, siteA, { gitHost });
  resourcesB = await createSiteResources(service, siteB, { gitHost });
  await service.context.daemon.drain();
}, 180_000);

/** Query parameters that name a resource, beyond the body's names (BODY_REFERENCES). */
const QUERY_REFERENCES: Record<string, string> = { assignee: 'userId', role: 'agentRole' };

interface SweptRequest {
  operation: Operation;
  path: string;
  rawBody?: string;
  /** A's values the request itself sends (an answer may echo them, and only them). */
  sent: string[];
  /** Whether the query or the body names one of A's resources. */
  referencesA: boolean;
}

/** A's values worth looking for in an answer (ids, names, emails, secrets: not `*` or `title`). */
function watchedValues(): string[] {
  return [...new Set([...Object.values(resourcesA.values), resourcesA.marker, ...resourcesA.secrets])].filter((value) => value.length >= 6);
}

/**
 * The operation with `pathFrom`'s values in its path and `bodyFrom`'s in the query and body
 * parameters that name resources; a path parameter with no value gets a fixed random UUID.
 */
function requestFor(operation: Operation, pathFrom: SiteResources, bodyFrom: SiteResources, site: TestSite): SweptRequest {
  const sent: string[] = [];
  const valuesOfA = new Set(Object.values(resourcesA.values));
  const ofA = (value: string) => {
    if (valuesOfA.has(value)) sent.push(value);
    return value;
  };
  const pathValues: Record<string, string> = {};
  for (const parameter of operation.pathParameters) {
    const own = OWN_SITE_PARAMETERS[operation.key] !== undefined && /^site_?[iI]d$/.test(parameter.name);
    const value = own ? site.siteId : (pathValue(pathFrom, operation, parameter.name) ?? seededRandom(hashText(`${operation.key} ${parameter.name}`)).uuid());
    pathValues[parameter.name] = ofA(value);
  }
  // Query parameters that filter by a resource (`?roleId=`, `?collection=`, `?assignee=`) name `bodyFrom`'s.
  const query = operation.queryParameters
    .map(({ name }) => [name, QUERY_REFERENCES[name] ?? BODY_REFERENCES[name]] as const)
    .filter(([, kind]) => kind !== undefined && bodyFrom.values[kind] !== undefined)
    .map(([name, kind]) => `${name}=${encodeURIComponent(ofA(bodyFrom.values[kind!]!))}`);
  const path = fillPath(operation, pathValues) + (query.length > 0 ? `?${query.join('&')}` : '');
  const request: SweptRequest = { operation, path, sent, referencesA: bodyFrom === resourcesA && query.length > 0 };
  if (!operation.bodySchema) return request;
  const body = exampleFor(document, operation.bodySchema);
  const schema = resolveSchema(document, operation.bodySchema);
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const object = body as Record<string, unknown>;
    const values = bodyFrom.values;
    for (const [name, property] of Object.entries<Record<string, unknown>>(schema.properties ?? {})) {
      const kind = BODY_REFERENCES[name];
      const value = kind === undefined ? undefined : values[kind];
      if (value === undefined) continue;
      const types = typesOf(document, property);
      object[name] = types.includes('array') && !types.includes('string') ? [ofA(value)] : ofA(value);
    }
    if (schema.properties?.members) object.members = [ofA(values.userId!)];
    if (schema.properties?.addItems) object.addItems = [{ collection: ofA(values.collection!), itemId: ofA(values.itemId!), targetStatus: 'published' }];
  }
  request.rawBody = JSON.stringify(body);
  request.referencesA ||= bodyFrom === resourcesA && sent.some((value) => request.rawBody!.includes(value));
  return request;
}

async function send(request: SweptRequest, site: TestSite, requestId: string): Promise<TestResponse> {
  return service.request(request.operation.method, request.path, {
    site: site.siteId,
    token: site.adminToken,
    headers: { 'x-request-id': requestId },
    ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
  });
}

/**
 * A's names (not ids) B has sent so far: B may have made resources of its own under them (a collection,
 * a setting of the same name), which B's later answers rightly show.
 */
const namesSentByB = new Set<string>();

/** A's values in the answer, once the values the request sent itself, and A's names B used before, are taken out of it. */
function leakedValues(request: SweptRequest, response: TestResponse): string[] {
  let text = JSON.stringify(response.body) ?? '';
  for (const echoed of [...request.sent, ...namesSentByB].sort((left, right) => right.length - left.length)) text = text.split(echoed).join('<sent>');
  return watchedValues().filter((value) => text.includes(value));
}

/** Signs B's administrator in again when a swept request ended the session (DELETE /me/sessions does). */
async function keepBSignedIn(): Promise<void> {
  const me = await service.request('GET', '/auth/me', { site: siteB.siteId, token: siteB.adminToken });
  if (me.status === 200) return;
  const login = await service.request('POST', '/auth/login', { site: siteB.siteId, body: { email: siteB.adminEmail, password: siteB.adminPassword } });
  expect(login.status).toBe(200);
  siteB.adminToken = login.body.data.token;
}

/** Sends each request as B's administrator; answers what is wrong with B's answers. */
async function sweep(requests: SweptRequest[], label: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [index, request] of requests.entries()) {
    const { operation } = request;
    const where = `${label}: ${operation.key} (${operation.method} ${request.path.slice(0, 140)})`;
    const response = await send(request, siteB, `${label}-${index}`);
    if (response.status >= 500 && !isDegradedMode(response)) problems.push(`${where}: answered ${response.status} ${JSON.stringify(response.body)?.slice(0, 200)}`);
    else if (response.status >= 400 && envelopeError(response) === null && !isHtmlPage(operation.key, response)) {
      problems.push(`${where}: answered ${response.status} without the envelope`);
    }
    const leaked = leakedValues(request, response);
    if (leaked.length > 0) problems.push(`${where}: answered ${response.status} with A's ${leaked.join(', ')}: ${JSON.stringify(response.body)?.slice(0, 300)}`);
    for (const value of request.sent) if (!isUuid(value)) namesSentByB.add(value);
    // A list counts what it shows: a total above the rows of a short page would count rows B cannot see.
    const { data, meta } = (response.body ?? {}) as { data?: unknown; meta?: { total?: unknown } };
    if (operation.method === 'GET' && response.status === 200 && Array.isArray(data) && typeof meta?.total === 'number' && data.length < 25 && meta.total !== data.length) {
      problems.push(`${where}: lists ${data.length} rows but counts ${meta.total}`);
    }
    // An id names one site's resource: B's write that takes A's id took something of A's (a name, B may reuse).
    const idsOfA = request.sent.filter((value) => isUuid(value) && request.rawBody?.includes(value));
    if (response.status < 300 && idsOfA.length > 0) problems.push(`${where}: took A's ${idsOfA.join(', ')} in its body and answered ${response.status}`);
    if (response.status < 300) await keepBSignedIn();
  }
  return problems;
}

interface Read {
  request: SweptRequest;
  status: number;
  body: unknown;
}

/** What the GET operations answer A's administrator, by operation, for a before/after comparison. */
async function readsOfA(): Promise<Map<string, Read>> {
  const reads = new Map<string, Read>();
  for (const operation of operations.filter((one) => one.method === 'GET')) {
    const request = requestFor(operation, resourcesA, resourcesA, siteA);
    const response = await send(request, siteA, `control-${reads.size}`);
    reads.set(operation.key, { request, status: response.status, body: response.body });
  }
  return reads;
}

/** Fields that say when an answer was made, not what the site holds. */
const MOMENT_FIELDS = new Set(['exportedAt', 'uptimeSeconds']);

/** Where two answers differ (ignoring MOMENT_FIELDS), or null. */
function firstDifference(before: unknown, after: unknown, path: string): string | null {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) {
    return JSON.stringify(before) === JSON.stringify(after) ? null : `${path || '.'}: ${JSON.stringify(before)?.slice(0, 120)} → ${JSON.stringify(after)?.slice(0, 120)}`;
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    if (MOMENT_FIELDS.has(key)) continue;
    const difference = firstDifference((before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key], `${path}.${key}`);
    if (difference !== null) return difference;
  }
  return null;
}

let readsBefore: Map<string, Read>;

describe('the sweep of every route, with site A’s ids, as site B’s administrator', () => {
  it('is not vacuous: A’s own administrator reads A’s resources through the same routes', async () => {
    readsBefore = await readsOfA();
    // The sweep's own leak check, on A's answers to A: it finds every kind of A's resources in them.
    const found = new Set<string>();
    let answered = 0;
    for (const { request, status, body } of readsBefore.values()) {
      if (status !== 200) continue;
      answered += 1;
      for (const value of leakedValues(request, { status, headers: new Headers(), body })) found.add(value);
    }
    const kinds = Object.keys(resourcesA.values).filter((kind) => resourcesA.values[kind]!.length >= 6);
    expect(kinds.filter((kind) => !found.has(resourcesA.values[kind]!))).toEqual([]);
    expect(found).toContain(resourcesA.marker);
    expect(answered).toBeGreaterThan(100);
  });

  it(`answers B, sending A's ids to each of the ${operations.length} operations, no 5xx, the envelope, and nothing of A shown, counted or written`, async () => {
    const aPosition = await siteLogPosition(service, siteA.siteId);
    const aCount = await siteEventCount(service, siteA.siteId);
    // A's ids in the path (and the body); then B's own resources in the path and A's in the body.
    const withAIds = operations.map((operation) => requestFor(operation, resourcesA, resourcesA, siteB));
    const withReferencesToA = operations.map((operation) => requestFor(operation, resourcesB, resourcesA, siteB)).filter((request) => request.referencesA);
    const problems = [...(await sweep(withAIds, 'A ids')), ...(await sweep(withReferencesToA, 'A references'))];
    for (const event of await siteEventsAfter(service, siteA.siteId, aPosition)) {
      problems.push(`A's log gained ${event.type} on ${event.streamId} (request ${event.requestId})`);
    }
    expect(withReferencesToA.length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
    expect(await siteEventCount(service, siteA.siteId)).toBe(aCount);
  }, 180_000);

  it('leaves A’s data as it was: every route reads the same for A’s administrator', async () => {
    const readsAfter = await readsOfA();
    const changed = [...readsBefore.keys()]
      .map((key) => {
        const [before, after] = [readsBefore.get(key)!, readsAfter.get(key)!];
        return [key, firstDifference({ status: before.status, body: before.body }, { status: after.status, body: after.body }, '')] as const;
      })
      .filter(([, difference]) => difference !== null)
      .map(([key, difference]) => `${key}: ${difference}`);
    expect(changed).toEqual([]);
  });
});
