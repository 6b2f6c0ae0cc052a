// A seeded, bounded fuzz of every operation of the service's own OpenAPI document (fetched from the
// running service, so a route added later is fuzzed too). Each operation gets a sample of hostile
// requests (test/support/hostileRequests.ts) as a fresh site's administrator and without credentials.
// Whatever it is sent, the service answers no 5xx, refuses in the spec's envelope, writes nothing to
// the log for a request it refused, and leaves Object.prototype alone. FUZZ_SEED=<n> replays a run.
import { describe, expect, it, onTestFailed } from 'vitest';
import { envelopeError, isDegradedMode, isHtmlPage } from '../support/apiAnswers.ts';
import { hostileRequests, sampleHostileRequests, type HostileRequest } from '../support/hostileRequests.ts';
import { fetchOpenApiDocument, fillPath, listOperations, type Operation } from '../support/openapiOperations.ts';
import { hashText, seededRandom } from '../support/seededRandom.ts';
import { siteEventsAfter, siteLogPosition } from '../support/siteEventLog.ts';
import { createTestSite, INSTANCE_TOKEN, startTestServiceForFile, type TestResponse, type TestSite } from '../support/testService.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed0001) >>> 0;
/** Requests per operation: about 350 operations, so about 2,100 requests in all (the file's budget is 90 s on a loaded 2-core machine). */
const CASES_PER_OPERATION = 6;
const REQUEST_TIMEOUT_MS = 20_000;
/** Where the upstreams the service may call are: a closed local port, so nothing leaves the machine or waits. */
const NOWHERE = 'http://127.0.0.1:9';

/** Operations the fuzz leaves out, each with why. None today: every operation answers its requests. */
const EXCLUDED: Record<string, string> = {};

/** Events a refused request appends by design: the log's record of the refusal itself. */
const RECORDS_OF_REFUSALS = new Set(['user.sign_in_failed', 'auth.sign_in_failed']);

const service = await startTestServiceForFile({
  // Sign-in and the other auth routes are fuzzed like the rest, and the administrator signs in again
  // when a fuzzed request ended their session: the per-IP auth limit would answer 429 instead.
  SVC_RATE_LIMIT_AUTH: '0',
  // The MCP endpoint is off by default (404 to everything); on, its JSON-RPC handling is fuzzed too.
  SVC_MCP_ENABLED: 'true',
  SVC_GIT_GITHUB_API_URL: NOWHERE,
  SVC_GIT_GITHUB_URL: NOWHERE,
  SVC_GIT_GITLAB_URL: NOWHERE,
  SVC_CLOUD_SYNC_FIRESTORE_URL: NOWHERE,
  SVC_CLOUD_SYNC_TOKEN_URL: NOWHERE,
});
const document = await fetchOpenApiDocument(service);
const operations = listOperations(document);
/**
 * The operations in groups of whole tags, 30 operations or more each, one test (and one fresh site) per
 * group: a site costs two password hashes, which a loaded machine makes slow.
 */
const groups: { tags: string[]; operations: Operation[] }[] = [];
for (const tag of new Set(operations.map((operation) => operation.tag))) {
  const tagged = operations.filter((operation) => operation.tag === tag && EXCLUDED[operation.key] === undefined);
  const last = groups.at(-1);
  if (last && last.operations.length < 30) {
    last.tags.push(tag);
    last.operations.push(...tagged);
  } else groups.push({ tags: [tag], operations: tagged });
}

interface FuzzSite extends TestSite {
  itemId: string;
  /** Where the site's log stood when the last operation's requests had been sent. */
  logPosition: number;
}

/** A fresh site with a collection `notes` (a string `title`) and one item, for the path parameters that name them. */
async function fuzzSite(): Promise<FuzzSite> {
  const site = await createTestSite(service, 'fuzz');
  const collection = await service.request('POST', '/collections', {
    site: site.siteId,
    token: site.adminToken,
    body: { name: 'notes', fields: [{ field: 'title', type: 'string' }] },
  });
  expect(collection.status, JSON.stringify(collection.body)).toBe(201);
  const item = await service.request('POST', '/items/notes', { site: site.siteId, token: site.adminToken, body: { title: 'fuzzed' } });
  expect(item.status, JSON.stringify(item.body)).toBe(201);
  return { ...site, itemId: item.body.data.id, logPosition: await siteLogPosition(service, site.siteId) };
}

function knownPathValue(site: FuzzSite, operation: Operation, parameter: string): string | undefined {
  if (parameter === 'collection' || (parameter === 'name' && operation.apiPath.startsWith('/collections/'))) return 'notes';
  if (parameter === 'field') return 'title';
  if (parameter === 'id' && operation.apiPath.startsWith('/items/{collection}/{id}')) return site.itemId;
  if (parameter === 'site_id' || parameter === 'siteId') return site.siteId;
  if (parameter === 'provider') return 'github';
  return undefined;
}

async function send(fuzz: HostileRequest, site: TestSite, requestId: string): Promise<TestResponse> {
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (fuzz.contentType) headers['content-type'] = fuzz.contentType;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)), REQUEST_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      service.request(fuzz.method, fuzz.path, {
        site: site.siteId,
        token: fuzz.token,
        headers,
        ...(fuzz.rawBody === undefined ? {} : { rawBody: fuzz.rawBody }),
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const excerpt = (value: unknown) => JSON.stringify(value)?.slice(0, 300);

/** What is wrong with one answer, or null. */
function problemWith(operation: Operation, fuzz: HostileRequest, response: TestResponse): string | null {
  if (response.status >= 500 && !isDegradedMode(response)) {
    return `answered ${response.status}: ${excerpt(response.body)}`;
  }
  // The envelope, except on the pages for browsers (HTML_PAGES of ../support/apiAnswers.ts).
  if (response.status >= 400 && envelopeError(response) === null && !isHtmlPage(operation.key, response)) return `answered ${response.status} without the error envelope: ${excerpt(response.body)}`;
  if (fuzz.refusesCredentials && response.status !== 401) return `answered ${response.status} without valid credentials, not 401: ${excerpt(response.body)}`;
  return null;
}

/** Signs the administrator in again when a fuzzed request ended their session (DELETE /me/sessions does). */
async function keepSignedIn(site: FuzzSite): Promise<void> {
  const me = await service.request('GET', '/auth/me', { site: site.siteId, token: site.adminToken });
  if (me.status === 200) return;
  const login = await service.request('POST', '/auth/login', { site: site.siteId, body: { email: site.adminEmail, password: site.adminPassword } });
  expect(login.status, `signing in again after a fuzzed request: ${excerpt(login.body)}`).toBe(200);
  site.adminToken = login.body.data.token;
  // The sign-in's own events are not the next operation's.
  site.logPosition = await siteLogPosition(service, site.siteId);
}

/** Sends the operation's sample of hostile requests; answers what went wrong. */
async function fuzzOperation(operation: Operation, site: FuzzSite): Promise<string[]> {
  const operationSeed = (SEED ^ hashText(operation.key)) >>> 0;
  const random = seededRandom(operationSeed);
  const token = operation.access === 'instance' ? INSTANCE_TOKEN : site.adminToken;
  const cases = sampleHostileRequests(
    hostileRequests(operation, { document, random, token, knownPathValue: (op, parameter) => knownPathValue(site, op, parameter) }),
    random,
    CASES_PER_OPERATION,
  );
  const problems: string[] = [];
  const refused = new Map<string, string>();
  let succeeded = false;
  for (const [index, fuzz] of cases.entries()) {
    const requestId = `fuzz-${operationSeed.toString(16)}-${index}`;
    const where = `${operation.key} [${fuzz.label}] (${fuzz.method} ${fuzz.path.slice(0, 120)})`;
    let response: TestResponse;
    try {
      response = await send(fuzz, site, requestId);
    } catch (error) {
      problems.push(`${where}: ${(error as Error).message}`);
      continue;
    }
    const problem = problemWith(operation, fuzz, response);
    if (problem) problems.push(`${where}: ${problem}`);
    if (response.status >= 400) refused.set(requestId, fuzz.label);
    else succeeded = true;
  }
  const appended = await siteEventsAfter(service, site.siteId, site.logPosition);
  site.logPosition = appended.at(-1)?.position ?? site.logPosition;
  // Events of an earlier operation's request (a reactor's, landing late) carry that request's id and pass.
  for (const event of appended) {
    if (RECORDS_OF_REFUSALS.has(event.type)) continue;
    const refusedCase = event.requestId === null ? undefined : refused.get(event.requestId);
    if (refusedCase !== undefined) problems.push(`${operation.key} [${refusedCase}]: refused, yet appended ${event.type} to ${event.streamId}`);
    else if (!succeeded && !event.requestId?.startsWith('fuzz-')) {
      problems.push(`${operation.key}: refused every request, yet ${event.type} was appended to ${event.streamId} (request ${event.requestId})`);
    }
  }
  if (Object.hasOwn(Object.prototype, 'fuzzPolluted') || Object.hasOwn(Array.prototype, 'fuzzPolluted')) {
    problems.push(`${operation.key}: a request polluted Object.prototype`);
  }
  if (succeeded && operation.access !== 'instance') await keepSignedIn(site);
  return problems;
}

describe('every operation of the OpenAPI document, sent hostile input', () => {
  it('walks the whole document: every operation is fuzzed or excluded with a reason', () => {
    expect(operations.length).toBeGreaterThan(300);
    const keys = new Set(operations.map((operation) => operation.key));
    expect(Object.keys(EXCLUDED).filter((key) => !keys.has(key))).toEqual([]);
  });

  // What the fuzz found answering 500 (a NUL reaching SQL through a query or path parameter), swept
  // whole rather than sampled: every parameter of every operation, once.
  it('answers a NUL in any path or query parameter without a 5xx, in the envelope', async () => {
    const site = await fuzzSite();
    const problems: string[] = [];
    for (const operation of operations.filter((one) => EXCLUDED[one.key] === undefined)) {
      const token = operation.access === 'instance' ? INSTANCE_TOKEN : site.adminToken;
      const pathValues = Object.fromEntries(operation.pathParameters.map(({ name }) => [name, knownPathValue(site, operation, name) ?? '01890f4e-1d6a-7c1a-9d2b-0123456789ab']));
      const paths = [
        ...operation.queryParameters.map(({ name }) => `${fillPath(operation, pathValues)}?${name}=a%00b`),
        ...operation.pathParameters.map(({ name }) => fillPath(operation, { ...pathValues, [name]: 'a%00b' }, new Set([name]))),
      ];
      for (const path of paths) {
        const fuzz: HostileRequest = { label: 'NUL', method: operation.method, path, token, refusesCredentials: false, ...(operation.bodySchema ? { rawBody: '{}' } : {}) };
        const problem = problemWith(operation, fuzz, await send(fuzz, site, `nul-${hashText(path).toString(16)}`));
        if (problem) problems.push(`${operation.key} (${operation.method} ${path}): ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  for (const group of groups) {
    it(`answers the ${group.operations.length} operations of ${group.tags.join(', ')} without a 5xx, refuses in the envelope and writes nothing when it refuses`, async () => {
      onTestFailed(() => {
        console.error(`fuzz seed ${SEED}: replay with FUZZ_SEED=${SEED}`);
      });
      const site = await fuzzSite();
      const problems: string[] = [];
      for (const operation of group.operations) problems.push(...(await fuzzOperation(operation, site)));
      expect(problems, `seed ${SEED}`).toEqual([]);
    }, 120_000);
  }
});
