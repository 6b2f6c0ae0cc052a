// A Firestore client over Google's REST API: a service account's signed JWT buys an OAuth access
// token (kept until shortly before it expires), and documents:batchWrite writes up to 500 documents
// per request, each succeeding or failing on its own.
import { importPKCS8, SignJWT } from 'jose';
import type { OutboundHttp } from '../http/outboundHttp.ts';
import { type CloudTarget, CloudTargetError, isRecord, isSuccess, sendToTarget, statusError, type TargetWrite, type TargetWriteResult } from './cloudTarget.ts';

/** The fields of a service account key file (the JSON Google hands out) that the client uses. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  /** PEM, PKCS#8. */
  private_key: string;
}

export interface FirestoreTargetOptions {
  serviceAccount: ServiceAccount;
  projectId: string;
  /** https://firestore.googleapis.com in production. */
  baseUrl: string;
  /** https://oauth2.googleapis.com/token in production. */
  tokenUrl: string;
  http: OutboundHttp;
  timeoutMs: number;
  /** The clock in milliseconds, for tests. */
  now?: () => number;
}

const TARGET = 'Firestore';
const SCOPE = 'https://www.googleapis.com/auth/datastore';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_LIFETIME_SECONDS = 3600;
/** A token is renewed this long before it expires, so that none expires on its way to Firestore. */
const TOKEN_MARGIN_MS = 60_000;
const MAX_WRITES_PER_REQUEST = 500;
/** Firestore's limit on the depth of maps and arrays in a document. */
const MAX_DEPTH = 20;

/** A value Firestore would refuse: that write fails, the rest of the batch goes on. */
class UnstorableValueError extends Error {}

type FirestoreValue = Record<string, unknown>;
type FirestoreWrite = { update: { name: string; fields: Record<string, FirestoreValue> } } | { delete: string };
interface WriteStatus {
  code?: number;
  message?: string;
}

function encodeValue(value: unknown, depth: number): FirestoreValue {
  if (value === null) return { nullValue: null };
  switch (typeof value) {
    case 'boolean':
      return { booleanValue: value };
    case 'string':
      return { stringValue: value };
    case 'number':
      return encodeNumber(value);
    case 'object':
      if (depth >= MAX_DEPTH) throw new UnstorableValueError(`Firestore stores maps and arrays at most ${MAX_DEPTH} levels deep`);
      return Array.isArray(value) ? { arrayValue: { values: value.map((entry) => encodeArrayEntry(entry, depth + 1)) } } : { mapValue: { fields: encodeFields(value as Record<string, unknown>, depth + 1) } };
    default:
      throw new UnstorableValueError(`Firestore cannot store a value of type ${typeof value}`);
  }
}

function encodeNumber(value: number): FirestoreValue {
  if (!Number.isFinite(value)) throw new UnstorableValueError('Firestore cannot store a number that is not finite');
  // int64 travels as a string in Google's JSON; an integer past 2^53 has lost its precision already.
  return Number.isSafeInteger(value) ? { integerValue: String(value) } : { doubleValue: value };
}

function encodeArrayEntry(value: unknown, depth: number): FirestoreValue {
  if (Array.isArray(value)) throw new UnstorableValueError('Firestore cannot store an array directly inside an array');
  return encodeValue(value, depth);
}

/** Undefined entries are left out, as JSON.stringify leaves them out. */
function encodeFields(data: Record<string, unknown>, depth: number): Record<string, FirestoreValue> {
  const fields: Record<string, FirestoreValue> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value !== undefined) fields[key] = encodeValue(value, depth);
  }
  return fields;
}

/** batchWrite takes one write per document: the last write to a path is sent, and its outcome is every earlier one's. */
function lastWritePerPath(writes: readonly TargetWrite[]): { write: TargetWrite; indexes: number[] }[] {
  const byPath = new Map<string, { write: TargetWrite; indexes: number[] }>();
  writes.forEach((write, index) => {
    const entry = byPath.get(write.path);
    if (entry) {
      entry.write = write;
      entry.indexes.push(index);
    } else {
      byPath.set(write.path, { write, indexes: [index] });
    }
  });
  return [...byPath.values()];
}

/** The OAuth access token: fetched once, shared by concurrent batches, renewed before it expires. */
function createTokenSource(options: FirestoreTargetOptions, now: () => number) {
  const { serviceAccount, tokenUrl } = options;
  let signingKey: ReturnType<typeof importPKCS8> | null = null;
  let cached: { token: string; renewAt: number } | null = null;
  let pending: Promise<string> | null = null;

  async function assertion(): Promise<string> {
    signingKey ??= importPKCS8(serviceAccount.private_key, 'RS256');
    const key = await signingKey.catch(() => {
      throw new CloudTargetError('The service account private key does not parse', false, null);
    });
    const issuedAt = Math.floor(now() / 1000);
    return new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(serviceAccount.client_email)
      .setSubject(serviceAccount.client_email)
      .setAudience(tokenUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
      .sign(key);
  }

  async function fetchToken(): Promise<string> {
    const body = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: await assertion() }).toString();
    const requestedAt = now();
    const response = await sendToTarget(
      options.http,
      { url: tokenUrl, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body, timeoutMs: options.timeoutMs },
      `${TARGET}'s token endpoint`,
    );
    if (!isSuccess(response.status)) throw statusError(`${TARGET}'s token endpoint`, response);
    const answer = parseJson(response.body);
    if (!isRecord(answer) || typeof answer.access_token !== 'string' || typeof answer.expires_in !== 'number') {
      throw new CloudTargetError(`${TARGET}'s token endpoint answered without an access token`, false, response.status);
    }
    cached = { token: answer.access_token, renewAt: requestedAt + answer.expires_in * 1000 - TOKEN_MARGIN_MS };
    return answer.access_token;
  }

  return {
    get(): Promise<string> {
      if (cached && now() < cached.renewAt) return Promise.resolve(cached.token);
      pending ??= fetchToken().finally(() => {
        pending = null;
      });
      return pending;
    },
    /** Firestore refused this token: the next batch fetches another (unless one was fetched meanwhile). */
    forget(token: string): void {
      if (cached?.token === token) cached = null;
    },
  };
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

export function createFirestoreTarget(options: FirestoreTargetOptions): CloudTarget {
  const now = options.now ?? Date.now;
  const tokens = createTokenSource(options, now);
  const databasePath = `projects/${options.projectId}/databases/(default)`;
  const batchWriteUrl = `${options.baseUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(options.projectId)}/databases/(default)/documents:batchWrite`;

  function toFirestoreWrite(write: TargetWrite): FirestoreWrite {
    const name = `${databasePath}/documents/${write.path}`;
    return write.data === null ? { delete: name } : { update: { name, fields: encodeFields(write.data, 0) } };
  }

  async function post(body: string, token: string) {
    return sendToTarget(
      options.http,
      { url: batchWriteUrl, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body, timeoutMs: options.timeoutMs },
      TARGET,
    );
  }

  /** One batchWrite request; a 401 means the token went stale early (revoked, clock skew): one more try with a fresh one. */
  async function batchWrite(writes: FirestoreWrite[]): Promise<WriteStatus[]> {
    const body = JSON.stringify({ writes });
    const token = await tokens.get();
    let response = await post(body, token);
    if (response.status === 401) {
      tokens.forget(token);
      response = await post(body, await tokens.get());
    }
    if (!isSuccess(response.status)) throw statusError(TARGET, response);
    const answer = parseJson(response.body);
    // The body is cut at 64 KiB by the HTTP client: an answer past that (hundreds of long failure messages) does not parse.
    if (!isRecord(answer) || !Array.isArray(answer.status) || answer.status.length !== writes.length) {
      throw new CloudTargetError(`${TARGET} answered ${response.status} with write statuses that could not be read`, false, response.status);
    }
    return answer.status as WriteStatus[];
  }

  return {
    // Chunks go one after the other; when one fails the batch fails, and the earlier chunks are
    // written again on retry, which is harmless: every write sets or deletes a whole document.
    async write(writes) {
      const failed: TargetWriteResult['failed'] = [];
      const outgoing: { write: FirestoreWrite; indexes: number[] }[] = [];
      for (const { write, indexes } of lastWritePerPath(writes)) {
        try {
          outgoing.push({ write: toFirestoreWrite(write), indexes });
        } catch (error) {
          if (!(error instanceof UnstorableValueError)) throw error;
          failed.push(...indexes.map((index) => ({ index, error: error.message })));
        }
      }
      for (let start = 0; start < outgoing.length; start += MAX_WRITES_PER_REQUEST) {
        const chunk = outgoing.slice(start, start + MAX_WRITES_PER_REQUEST);
        const statuses = await batchWrite(chunk.map((entry) => entry.write));
        statuses.forEach((status, position) => {
          if (!status.code) return;
          const error = `${TARGET} refused the write (code ${status.code})${status.message ? `: ${status.message}` : ''}`;
          failed.push(...chunk[position]!.indexes.map((index) => ({ index, error })));
        });
      }
      return { failed: failed.sort((a, b) => a.index - b.index) };
    },
  };
}
