// Calls of the API that the typed client makes awkward (loose JSON bodies, uploads, 204s, query
// strings built at run time). They go through the client's own pipeline: the site header, the token
// and its refresh, retries, and refusals thrown as SvcError.
import type { SvcClient } from '@svc-cms/sdk';

type Query = Record<string, string | number | undefined>;

export interface CallOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends one API call (`path` after /api/v1); answers the parsed body (null for a 204) and the response. */
export async function call<T = unknown>(client: SvcClient, method: string, path: string, options: CallOptions = {}): Promise<{ body: T; response: Response }> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== '') search.set(key, String(value));
  const qs = search.toString();
  const headers = new Headers(options.headers);
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(options.body);
  }
  const response = await client.fetch(new Request(`${client.baseUrl}/api/v1${path}${qs ? `?${qs}` : ''}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
  const text = response.status === 204 ? '' : await response.text();
  return { body: (text ? JSON.parse(text) : null) as T, response };
}

/** One JSON request of the API (`path` after /api/v1); resolves the parsed body, or null for a 204. */
export async function apiJson<T>(client: SvcClient, method: string, path: string, body?: unknown): Promise<T> {
  return (await call<T>(client, method, path, body === undefined ? {} : { body })).body;
}
