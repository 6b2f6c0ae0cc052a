// The port a cloud-sync pipeline writes through (Firestore, Realtime Database), and the one way both
// clients turn a transport failure or an error status into a CloudTargetError.
import { OutboundRequestError, type OutboundHttp, type OutboundRequest, type OutboundResponse } from '../http/outboundHttp.ts';

/** One document to write (data) or delete (data null), at a path relative to the target's root, e.g. "cms/articles/0193…" */
export interface TargetWrite {
  path: string;
  data: Record<string, unknown> | null;
}

/** Per-write failures of a batch the target accepted as a whole (index into the batch). */
export interface TargetWriteResult {
  failed: { index: number; error: string }[];
}

/** The whole batch failed: retryable (network, timeout, 429, 5xx) or not (400/401/403/404 …). The message never holds a credential, token or URL query. */
export class CloudTargetError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'CloudTargetError';
  }
}

export interface CloudTarget {
  write(writes: readonly TargetWrite[]): Promise<TargetWriteResult>;
}

const MAX_DETAIL_LENGTH = 300;

/** Sends one request; a transport failure becomes a CloudTargetError. Node's network messages name the host and port, never the URL, so they may be quoted. */
export async function sendToTarget(http: OutboundHttp, request: OutboundRequest, target: string): Promise<OutboundResponse> {
  try {
    return await http.send(request);
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    if (error.code === 'TIMEOUT' || error.code === 'NETWORK') throw new CloudTargetError(`${target} could not be reached: ${error.message}`, true, null);
    throw new CloudTargetError(`${target}: the address is not allowed (${error.message})`, false, null);
  }
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** An error status: worth retrying when the target is overloaded or failing, not when it refuses the request. */
export function statusError(target: string, response: OutboundResponse): CloudTargetError {
  const detail = errorDetail(response.body);
  const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
  return new CloudTargetError(`${target} answered ${response.status}${detail ? `: ${detail}` : ''}`, retryable, response.status);
}

/**
 * The target's own words on a failure when its answer is JSON that has them: Google's
 * `{ error: { message } }`, OAuth's `{ error, error_description }`, Firebase's `{ error }`. Any other
 * body is not quoted: a proxy's error page may echo the request line, query and all.
 */
function errorDetail(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  const { error, error_description: description } = parsed;
  const parts = [typeof error === 'string' ? error : isRecord(error) && typeof error.message === 'string' ? error.message : null, typeof description === 'string' ? description : null];
  const detail = parts.filter((part) => part !== null).join(': ');
  return detail === '' ? null : detail.slice(0, MAX_DETAIL_LENGTH);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
