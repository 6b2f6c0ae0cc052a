// request: an HTTP request from the flow through the SSRF-guarded outbound client (no private,
// loopback or metadata address unless SVC_FLOW_ALLOW_PRIVATE; redirects are not followed). A status of
// 400 or more fails the node.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import { OutboundRequestError } from '../../../../infra/http/outboundHttp.ts';
import { defineOperation } from '../operation.ts';
import { untilAborted } from './optionShapes.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const MAX_REQUEST_TIMEOUT_MS = 30_000;
/** The most of a response body the output keeps (the outbound client may cut it shorter). */
const MAX_BODY_BYTES = 1024 * 1024;

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, 'must be an HTTP header name');

export const requestOperation = defineOperation({
  key: 'request',
  description:
    'Sends an HTTP request; outputs { status, headers, body } (the body parsed when it is JSON, else text). A status of 400 or more, an unreachable host, a private address or the timeout fails the node.',
  options: z
    .object({
      url: z.string().min(1).max(2_000).describe('An http or https URL (a template).'),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET').describe('The method (default GET).'),
      headers: z.record(headerName, z.string().max(8_000)).optional().describe('Request headers (values may be templates).'),
      body: z.unknown().optional().describe('Text is sent as it is; any other JSON value as JSON (content-type application/json unless given).'),
      timeoutMs: z
        .number()
        .int()
        .min(1)
        .max(MAX_REQUEST_TIMEOUT_MS)
        .default(DEFAULT_REQUEST_TIMEOUT_MS)
        .describe(`How long to wait for the answer, in milliseconds (default ${DEFAULT_REQUEST_TIMEOUT_MS}, at most ${MAX_REQUEST_TIMEOUT_MS}).`),
    })
    .strict(),
  sideEffects: true,
  async run(options, call) {
    const headers: Record<string, string> = { ...options.headers };
    const body = options.body === undefined || options.body === null ? null : encodeBody(options.body, headers);
    let response;
    try {
      const request = { url: options.url, method: options.method ?? 'GET', headers, body, timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS };
      response = await untilAborted(() => call.http.send(request), call.signal);
    } catch (error) {
      throw error instanceof OutboundRequestError ? outboundError(error) : error;
    }
    const output = { status: response.status, headers: response.headers, body: decodeBody(response.body, response.headers) };
    if (response.status >= 400) {
      throw new AppError('DELIVERY_FAILED', `The request answered ${response.status}`, { extensions: { status: response.status } });
    }
    return output;
  },
});

function encodeBody(body: unknown, headers: Record<string, string>): string {
  if (typeof body === 'string') return body;
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}

function decodeBody(text: string, headers: IncomingHttpHeaders): unknown {
  const bounded = Buffer.byteLength(text) > MAX_BODY_BYTES ? Buffer.from(text).subarray(0, MAX_BODY_BYTES).toString('utf8') : text;
  if (!/\bjson\b/i.test(headers['content-type'] ?? '')) return bounded;
  try {
    return JSON.parse(bounded) as unknown;
  } catch {
    return bounded; // cut short, or not the JSON it says it is
  }
}

/** The client's refusals: a URL or address the flow may not call is its options' fault; the rest is the far side's. */
function outboundError(error: OutboundRequestError): AppError {
  if (error.code === 'INVALID_URL' || error.code === 'BLOCKED_ADDRESS') {
    return new AppError('VALIDATION_FAILED', `The request was refused: ${error.message}`, { path: ['options', 'url'], extensions: { reason: error.code } });
  }
  return new AppError('DELIVERY_FAILED', `The request failed: ${error.message}`, { extensions: { reason: error.code } });
}
