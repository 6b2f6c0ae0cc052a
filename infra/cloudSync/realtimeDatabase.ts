// A Firebase Realtime Database client over its REST API: a batch is one multi-path update (PATCH of
// the root with one key per path, null deleting), which the database applies atomically.
import type { OutboundHttp } from '../http/outboundHttp.ts';
import { type CloudTarget, CloudTargetError, isSuccess, sendToTarget, statusError, type TargetWrite } from './cloudTarget.ts';

export interface RealtimeDatabaseTargetOptions {
  /** https://<database>.firebaseio.com (or a regional …firebasedatabase.app). */
  databaseUrl: string;
  /** A database secret or an ID token: sent as the `auth` query parameter, so the URL is never quoted. */
  secret: string;
  http: OutboundHttp;
  timeoutMs: number;
}

const TARGET = 'Realtime Database';
const MAX_PATHS_PER_UPDATE = 1000;
const MAX_UPDATE_BYTES = 16 * 1024 * 1024;
/** What a Firebase key may not hold; an empty segment ("a//b", a leading slash) is refused too. */
const FORBIDDEN_IN_KEY = /[.#$[\]\u0000-\u001f\u007f]/;

function invalidPath(path: string): boolean {
  return path.split('/').some((segment) => segment === '' || FORBIDDEN_IN_KEY.test(segment));
}

/** The update bodies of a batch: the last write to a path wins; a body holds at most 1,000 paths and 16 MiB. */
function updateBodies(writes: readonly TargetWrite[]): string[] {
  const latest = new Map(writes.map((write) => [write.path, write.data]));
  const bodies: string[] = [];
  let entries: string[] = [];
  let bytes = 0;
  for (const [path, data] of latest) {
    const entry = `${JSON.stringify(path)}:${JSON.stringify(data)}`;
    const size = Buffer.byteLength(entry);
    if (entries.length > 0 && (entries.length === MAX_PATHS_PER_UPDATE || bytes + size > MAX_UPDATE_BYTES)) {
      bodies.push(`{${entries.join(',')}}`);
      entries = [];
      bytes = 0;
    }
    entries.push(entry);
    bytes += size + 1;
  }
  if (entries.length > 0) bodies.push(`{${entries.join(',')}}`);
  return bodies;
}

export function createRealtimeDatabaseTarget(options: RealtimeDatabaseTargetOptions): CloudTarget {
  // print=silent: the database answers 204 instead of echoing the whole update back.
  const url = `${options.databaseUrl.replace(/\/+$/, '')}/.json?auth=${encodeURIComponent(options.secret)}&print=silent`;

  async function update(body: string): Promise<void> {
    const response = await sendToTarget(options.http, { url, method: 'PATCH', headers: { 'content-type': 'application/json' }, body, timeoutMs: options.timeoutMs }, TARGET);
    if (!isSuccess(response.status)) throw statusError(TARGET, response);
  }

  return {
    // Updates go one after the other: when one fails the batch fails, and the earlier ones are
    // applied again on retry, which is harmless: each key sets or deletes a whole path.
    async write(writes) {
      const refused = writes.find((write) => invalidPath(write.path));
      if (refused) throw new CloudTargetError(`${TARGET} paths may not be empty or hold . # $ [ ] or control characters: ${JSON.stringify(refused.path.slice(0, 200))}`, false, null);
      for (const body of updateBodies(writes)) await update(body);
      return { failed: [] };
    },
  };
}
