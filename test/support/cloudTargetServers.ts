// Local stand-ins for the two cloud-sync targets, speaking their REST protocols: Firestore (with
// Google's OAuth token endpoint for service accounts) and the Firebase Realtime Database. They keep
// no log and little state per request, as a benchmark pushes 100,000 items through them.
import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, jwtVerify } from 'jose';
import type { ServiceAccount } from '../../infra/cloudSync/firestore.ts';

export function makeServiceAccount(projectId = 'demo-project'): { account: ServiceAccount; publicKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const client_email = `sync-${randomBytes(4).toString('hex')}@${projectId}.iam.gserviceaccount.com`;
  return { account: { project_id: projectId, client_email, private_key: privateKey }, publicKey };
}

type Answer = [status: number, body: unknown];
type Handler = (request: http.IncomingMessage, url: URL, body: string) => Answer | Promise<Answer>;

async function listen(handler: Handler): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    let answer: Answer;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      answer = await handler(request, new URL(request.url ?? '/', 'http://localhost'), Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      answer = [400, { error: `Invalid request: ${(error as Error).message}` }];
    }
    const [status, body] = answer;
    const text = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** failNext(n, status): the next n write requests answer that status. */
function createFailureInjector() {
  let remaining = 0;
  let status = 500;
  return {
    failNext(count: number, failureStatus: number) {
      remaining = count;
      status = failureStatus;
    },
    /** The status to answer instead of serving the request, if one is due. */
    take(): number | null {
      if (remaining === 0) return null;
      remaining -= 1;
      return status;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// Firestore

export interface FirestoreServer {
  baseUrl: string;
  tokenUrl: string;
  /** By document path relative to `documents/`, decoded to plain JS. */
  documents: Map<string, Record<string, unknown>>;
  requests: { path: string; writes: number; authorized: boolean }[];
  tokensIssued: number;
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

const DATASTORE_SCOPE = 'https://www.googleapis.com/auth/datastore';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const BATCH_WRITE_PATH = /^\/v1\/projects\/([^/]+)\/databases\/\(default\)\/documents:batchWrite$/;
const MAX_WRITES_PER_REQUEST = 500;
const INVALID_ARGUMENT = 3;
const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE' };

/** Google's error envelope. */
function googleError(status: number, message: string): Answer {
  return [status, { error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }];
}

function decodeValue(value: unknown): unknown {
  if (!isRecord(value)) throw new Error('a value is not an object');
  if ('nullValue' in value) return null;
  if (typeof value.booleanValue === 'boolean') return value.booleanValue;
  // int64 is a decimal string in Google's JSON.
  if (typeof value.integerValue === 'string' && /^-?\d+$/.test(value.integerValue)) return Number(value.integerValue);
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (isRecord(value.arrayValue)) return ((value.arrayValue.values as unknown[] | undefined) ?? []).map(decodeValue);
  if (isRecord(value.mapValue)) return decodeFields(value.mapValue.fields ?? {});
  throw new Error(`unsupported value ${JSON.stringify(value).slice(0, 100)}`);
}

function decodeFields(fields: unknown): Record<string, unknown> {
  if (!isRecord(fields)) throw new Error('fields is not an object');
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) data[key] = decodeValue(value);
  return data;
}

/** A document path has an even number of non-empty segments: collection/document[/collection/document…]. */
function isDocumentPath(path: string): boolean {
  const segments = path.split('/');
  return segments.length % 2 === 0 && segments.every((segment) => segment !== '');
}

function documentName(write: unknown): string | null {
  if (!isRecord(write)) return null;
  if (typeof write.delete === 'string') return write.delete;
  return isRecord(write.update) && typeof write.update.name === 'string' ? write.update.name : null;
}

export async function startFirestoreServer(options: { accounts: { client_email: string; publicKey: string }[]; tokenTtlSeconds?: number }): Promise<FirestoreServer> {
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3600;
  const publicKeys = new Map<string, KeyObject>(options.accounts.map((account) => [account.client_email, createPublicKey(account.publicKey)]));
  /** Access token → expiry (ms). */
  const tokens = new Map<string, number>();
  const failures = createFailureInjector();
  let tokenUrl = '';

  async function issueToken(body: string): Promise<Answer> {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== JWT_BEARER_GRANT) return [400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' }];
    const assertion = form.get('assertion') ?? '';
    let issuer: string | undefined;
    try {
      issuer = decodeJwt(assertion).iss;
    } catch {
      return [400, { error: 'invalid_grant', error_description: 'Invalid JWT.' }];
    }
    const key = issuer === undefined ? undefined : publicKeys.get(issuer);
    if (!key) return [400, { error: 'invalid_grant', error_description: 'Invalid grant: account not found' }];
    try {
      const { payload } = await jwtVerify(assertion, key, { algorithms: ['RS256'], audience: tokenUrl, issuer, requiredClaims: ['iat', 'exp'] });
      if (payload.exp! - payload.iat! > 3600) return [400, { error: 'invalid_grant', error_description: 'Invalid JWT: Token must be a short-lived token (60 minutes)' }];
      if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes(DATASTORE_SCOPE)) return [400, { error: 'invalid_scope', error_description: 'Invalid OAuth scope.' }];
    } catch (error) {
      const signature = (error as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED';
      return [400, { error: 'invalid_grant', error_description: signature ? 'Invalid JWT Signature.' : `Invalid JWT: ${(error as Error).message}` }];
    }
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    tokens.set(accessToken, Date.now() + tokenTtlSeconds * 1000);
    server.tokensIssued += 1;
    return [200, { access_token: accessToken, expires_in: tokenTtlSeconds, token_type: 'Bearer' }];
  }

  function isAuthorized(request: http.IncomingMessage): boolean {
    const header = request.headers.authorization ?? '';
    const expiresAt = header.startsWith('Bearer ') ? tokens.get(header.slice('Bearer '.length)) : undefined;
    return expiresAt !== undefined && expiresAt > Date.now();
  }

  /** Applies one write; answers its status (`{}` is OK: Google's JSON leaves out a zero code). */
  function applyWrite(write: Record<string, unknown>, name: string, prefix: string): Record<string, unknown> {
    const path = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (!isDocumentPath(path)) return { code: INVALID_ARGUMENT, message: 'invalid document path' };
    if ('delete' in write) {
      server.documents.delete(path);
      return {};
    }
    try {
      server.documents.set(path, decodeFields((write.update as Record<string, unknown>).fields ?? {}));
      return {};
    } catch (error) {
      return { code: INVALID_ARGUMENT, message: (error as Error).message };
    }
  }

  function batchWrite(request: http.IncomingMessage, url: URL, project: string, body: string): Answer {
    const writes = (JSON.parse(body) as { writes?: unknown }).writes;
    if (!Array.isArray(writes)) return googleError(400, 'writes is required');
    const authorized = isAuthorized(request);
    server.requests.push({ path: url.pathname, writes: writes.length, authorized });
    const failure = failures.take();
    if (failure !== null) return googleError(failure, 'Injected failure');
    if (!authorized) return googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    if (writes.length > MAX_WRITES_PER_REQUEST) return googleError(400, `A maximum of ${MAX_WRITES_PER_REQUEST} writes allowed per request`);
    const names = writes.map(documentName);
    if (names.includes(null)) return googleError(400, 'Each write needs an update with a name, or a delete');
    if (new Set(names).size !== names.length) return googleError(400, 'Cannot write to the same document more than once per request');
    const prefix = `projects/${decodeURIComponent(project)}/databases/(default)/documents/`;
    const status = writes.map((write, index) => applyWrite(write as Record<string, unknown>, names[index]!, prefix));
    const updateTime = new Date().toISOString();
    return [200, { writeResults: status.map((entry) => ('code' in entry ? {} : { updateTime })), status }];
  }

  const listener = await listen((request, url, body) => {
    if (request.method === 'POST' && url.pathname === '/token') return issueToken(body);
    const match = BATCH_WRITE_PATH.exec(url.pathname);
    if (request.method === 'POST' && match) return batchWrite(request, url, match[1]!, body);
    return googleError(404, `No route for ${request.method} ${url.pathname}`);
  });
  tokenUrl = `${listener.origin}/token`;
  const server: FirestoreServer = {
    baseUrl: listener.origin,
    tokenUrl,
    documents: new Map(),
    requests: [],
    tokensIssued: 0,
    failNext: failures.failNext,
    close: listener.close,
  };
  return server;
}

// ---------------------------------------------------------------------------------------------------
// Realtime Database

export interface RealtimeDatabaseServer {
  url: string;
  /** The JSON tree. Arrays are kept as written (Firebase would store them as objects keyed "0", "1", …). */
  data: Record<string, unknown>;
  requests: { method: string; paths: number; authorized: boolean }[];
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

const FORBIDDEN_IN_KEY = /[.#$[\]\u0000-\u001f\u007f]/;

/** Firebase keeps no nulls and no empty objects: they are the absence of a value. */
function stored(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const kept: Record<string, unknown> = {};
  let empty = true;
  for (const [key, entry] of Object.entries(value)) {
    const child = stored(entry);
    if (child === null) continue;
    kept[key] = child;
    empty = false;
  }
  return empty ? null : kept;
}

/**
 * The tree, with a count of children per node so that a delete drops an emptied parent without
 * counting the keys of a node that holds 100,000 items.
 */
function createTree(root: Record<string, unknown>) {
  const childCounts = new WeakMap<object, number>();
  const childCount = (node: Record<string, unknown>) => childCounts.get(node) ?? Object.keys(node).length;

  function set(node: Record<string, unknown>, key: string, value: unknown): void {
    if (value === null) {
      if (!Object.hasOwn(node, key)) return;
      childCounts.set(node, childCount(node) - 1);
      delete node[key];
      return;
    }
    if (!Object.hasOwn(node, key)) childCounts.set(node, childCount(node) + 1);
    node[key] = value;
  }

  /** Sets (or with null deletes) the value at a path, creating parents on the way and dropping the ones it empties. */
  function setAt(node: Record<string, unknown>, segments: string[], value: unknown): void {
    const [key, ...rest] = segments as [string, ...string[]];
    if (rest.length === 0) return set(node, key, value);
    let child = node[key];
    if (!isRecord(child)) {
      if (value === null) return;
      child = {};
      set(node, key, child);
    }
    setAt(child as Record<string, unknown>, rest, value);
    if (childCount(child as Record<string, unknown>) === 0) set(node, key, null);
  }

  return { setAt: (segments: string[], value: unknown) => setAt(root, segments, value) };
}

export async function startRealtimeDatabaseServer(options: { secret: string }): Promise<RealtimeDatabaseServer> {
  const failures = createFailureInjector();
  const data: Record<string, unknown> = {};
  const tree = createTree(data);

  function patch(url: URL, update: unknown): Answer {
    if (!isRecord(update)) return [400, { error: "Invalid data; couldn't parse JSON object. Are you sending a JSON object with valid key names?" }];
    const base = url.pathname.slice(1, -'.json'.length).split('/').filter((segment) => segment !== '');
    const changes = Object.entries(update).map(([key, value]) => ({ segments: [...base, ...key.split('/').filter((segment) => segment !== '')], value: stored(value) }));
    if (changes.some(({ segments }) => segments.length === 0 || segments.some((segment) => FORBIDDEN_IN_KEY.test(segment)))) {
      return [400, { error: `Invalid data; couldn't parse key beginning at 1:2. Key names can't contain ".", "#", "$", "/", "[", or "]"` }];
    }
    for (const { segments, value } of changes) tree.setAt(segments, value);
    // print=silent: Firebase answers 204 with no body instead of echoing the update.
    return url.searchParams.get('print') === 'silent' ? [204, undefined] : [200, update];
  }

  const listener = await listen((request, url, body) => {
    const authorized = url.searchParams.get('auth') === options.secret;
    const update: unknown = body === '' ? null : JSON.parse(body);
    server.requests.push({ method: request.method ?? '', paths: isRecord(update) ? Object.keys(update).length : 0, authorized });
    const failure = failures.take();
    if (failure !== null) return [failure, { error: 'Injected failure' }];
    if (!url.pathname.endsWith('.json')) return [404, { error: 'Not found' }];
    if (!authorized) return [401, { error: 'Permission denied' }];
    if (request.method !== 'PATCH') return [405, { error: 'Only PATCH is served here' }];
    return patch(url, update);
  });
  const server: RealtimeDatabaseServer = { url: listener.origin, data, requests: [], failNext: failures.failNext, close: listener.close };
  return server;
}
