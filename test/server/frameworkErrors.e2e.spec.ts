// Requests refused before any route runs (by Node's HTTP server, by Fastify's router or body parser)
// answer in the error envelope with the catalogue's status, like every other error. Sent as raw bytes
// over a socket: a client library would fix or refuse most of them before sending.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../support/testService.ts';

const service = await startTestServiceForFile();

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends `head` (request line and headers, without the blank line) and `body` as they are; reads until the server closes. */
function sendRaw(head: string, body = ''): Promise<RawResponse> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // A 100 Continue may come first; the answer is the last head.
      const parts = text.split('\r\n\r\n');
      const finalIndex = parts.map((part) => /^HTTP\/1\.1 \d{3} /.test(part)).lastIndexOf(true);
      if (finalIndex < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      const [statusLine = '', ...headerLines] = parts[finalIndex]!.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const bodyText = parts.slice(finalIndex + 1).join('\r\n\r\n');
      let parsed: unknown = bodyText;
      try {
        parsed = bodyText ? JSON.parse(bodyText) : null;
      } catch {
        // not JSON: kept as text, the assertion shows it
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: parsed });
    });
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

/** A request line and the usual headers: Host, the site and its token, Connection: close. */
function request(method: string, path: string, site: TestSite | null, extraHeaders: string[] = []): string {
  const headers = ['Host: 127.0.0.1', 'Connection: close', ...extraHeaders];
  if (site) headers.push(`X-Svc-Site: ${site.siteId}`, `Authorization: Bearer ${site.adminToken}`);
  return [`${method} /api/v1${path} HTTP/1.1`, ...headers].join('\r\n');
}

function expectEnvelope(response: RawResponse, status: number, code: string, path: (string | number)[]): void {
  expect(response.status, JSON.stringify(response)).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({ errors: [{ code, message: expect.any(String), path, extensions: expect.any(Object) }] });
}

describe("Fastify's router", () => {
  it('answers a path parameter over the router limit with 414 URI_TOO_LONG, with the request id', async () => {
    const site = await createTestSite(service, 'fw');
    const response = await sendRaw(request('GET', `/collections/${'a'.repeat(1_001)}`, site, ['X-Request-Id: client-chosen-id-414']));
    expectEnvelope(response, 414, 'URI_TOO_LONG', ['params']);
    expect(response.headers['x-request-id']).toBe('client-chosen-id-414');
    // At the limit, the route answers.
    const atLimit = await sendRaw(request('GET', `/collections/${'a'.repeat(100)}`, site));
    expectEnvelope(atLimit, 400, 'VALIDATION_FAILED', ['params', 'name']);
  });

  it('answers a path that is not valid percent-encoding with 400 VALIDATION_FAILED', async () => {
    const site = await createTestSite(service, 'fw');
    for (const path of ['/collections/%E0%A4%A', '/collections/%ZZ', '/items/articles/%C3%28']) {
      const response = await sendRaw(request('GET', path, site));
      expectEnvelope(response, 400, 'VALIDATION_FAILED', ['params']);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers a method a path does not take with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    const site = await createTestSite(service, 'fw');
    const cases: [string, string, string[]][] = [
      ['DELETE', '/collections', ['GET', 'HEAD', 'POST']],
      ['PUT', '/utils/version', ['GET', 'HEAD']],
      ['POST', '/collections/articles/schema', ['GET', 'HEAD', 'PUT']],
      ['PROPFIND', '/collections', ['GET', 'HEAD', 'POST']],
    ];
    for (const [method, path, allowed] of cases) {
      const response = await sendRaw(request(method, path, site));
      expectEnvelope(response, 405, 'METHOD_NOT_ALLOWED', []);
      expect(response.headers.allow, `${method} ${path}`).toBe(allowed.join(', '));
      expect((response.body as { errors: { extensions: unknown }[] }).errors[0]!.extensions).toEqual({ allowed });
    }
  });

  it('answers a path no route serves with 404 NOT_FOUND, whatever the method', async () => {
    const site = await createTestSite(service, 'fw');
    for (const method of ['GET', 'POST', 'PROPFIND']) {
      expectEnvelope(await sendRaw(request(method, '/no/such/route', site)), 404, 'NOT_FOUND', []);
    }
    // A route that answers 404 itself (a missing file of the reference page) stays a 404.
    expectEnvelope(await sendRaw(request('GET', '/reference/static/no-such-file.js', null)), 404, 'NOT_FOUND', []);
  });
});

describe("Fastify's body parser", () => {
  it('answers a body it cannot take with 415, 413 or 400 in the envelope', async () => {
    const site = await createTestSite(service, 'fw');
    const post = (headers: string[], body: string) => sendRaw(request('POST', '/collections', site, headers), body);
    expectEnvelope(await post(['Content-Type: ;;;', 'Content-Length: 2'], '{}'), 415, 'UNSUPPORTED_MEDIA_TYPE', ['body']);
    expectEnvelope(await post(['Content-Type: application/xml', 'Content-Length: 4'], '<a/>'), 415, 'UNSUPPORTED_MEDIA_TYPE', ['body']);
    expectEnvelope(await post(['Content-Length: 2'], '{}'), 415, 'UNSUPPORTED_MEDIA_TYPE', ['body']);
    expectEnvelope(await post(['Content-Type: application/json', 'Content-Length: 0'], ''), 400, 'VALIDATION_FAILED', ['body']);
    expectEnvelope(await post(['Content-Type: application/json', 'Content-Length: 5'], '{"a":'), 400, 'VALIDATION_FAILED', ['body']);
    // Refused from the Content-Length alone, before the body is read.
    expectEnvelope(await post(['Content-Type: application/json', 'Content-Length: 104857600'], '{}'), 413, 'PAYLOAD_TOO_LARGE', ['body']);
  });
});

describe("Node's HTTP server", () => {
  it('answers an Expect other than 100-continue with 417 EXPECTATION_FAILED, and still honours 100-continue', async () => {
    const site = await createTestSite(service, 'fw');
    const refused = await sendRaw(request('POST', '/collections', site, ['Expect: teapot', 'Content-Type: application/json', 'Content-Length: 2']), '{}');
    expectEnvelope(refused, 417, 'EXPECTATION_FAILED', ['headers', 'expect']);
    const body = JSON.stringify({ name: 'continued', fields: [{ field: 'title', type: 'string' }] });
    const continued = await sendRaw(
      request('POST', '/collections', site, ['Expect: 100-continue', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]),
      body,
    );
    expect(continued.status, JSON.stringify(continued.body)).toBe(201);
  });

  it('answers an HTTP/1.1 request without Host with 400 on the header; HTTP/1.0 needs none', async () => {
    const missing = await sendRaw('GET /api/v1/utils/version HTTP/1.1\r\nConnection: close');
    expectEnvelope(missing, 400, 'VALIDATION_FAILED', ['headers', 'host']);
    expect(missing.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const old = await sendRaw('GET /api/v1/utils/version HTTP/1.0');
    expect(old.status).toBe(200);
  });

  it('answers a malformed request or Content-Length with 400 in the envelope', async () => {
    expectEnvelope(await sendRaw('NOT AN HTTP REQUEST'), 400, 'VALIDATION_FAILED', []);
    const site = await createTestSite(service, 'fw');
    expectEnvelope(await sendRaw(request('POST', '/collections', site, ['Content-Type: application/json', 'Content-Length: two']), '{}'), 400, 'VALIDATION_FAILED', []);
  });
});
