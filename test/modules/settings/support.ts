// Helpers of the settings and site tests: an administrator's requests, refusals with their code and
// path, the audit entries of one kind, and requests that reach a site by its Host alone.
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { auditActions } from '../identity/support/identity.ts';
import { INSTANCE_TOKEN, uniqueSiteId, type TestResponse, type TestService, type TestSite } from '../../support/testService.ts';
import { KNOWN_SETTINGS } from '../../../src/modules/settings/catalogue.ts';

export const DEFAULT_UPLOAD_POLICY = { maxBytes: 26_214_400, allowedMimeTypes: [], allowedExtensions: [], catalogue: [] };

/** What GET /settings answers for a site that stored nothing: every known key's default (areas add keys). */
export const DEFAULT_SETTINGS: Record<string, unknown> = Object.fromEntries(Object.entries(KNOWN_SETTINGS).map(([key, definition]) => [key, definition.default]));

export type Caller = (method: string, path: string, body?: unknown) => Promise<TestResponse>;

/** Requests to the site with the given token (the site's administrator's by default). */
export function caller(service: TestService, site: TestSite, token: string | null = site.adminToken): Caller {
  return (method, path, body) => service.request(method, path, { site: site.siteId, token, body });
}

/** Expects a refusal: its status, its first error's code and (when given) path. */
export function expectRefused(response: TestResponse, status: number, code: string, path?: (string | number)[]): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.errors[0].code, JSON.stringify(response.body)).toBe(code);
  if (path) expect(response.body.errors[0].path, JSON.stringify(response.body)).toEqual(path);
}

/** Expects a success and answers its data. */
export function dataOf(response: TestResponse, status = 200): any {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body.data;
}

/** The site's audit actions whose name starts with the prefix, newest first. */
export async function auditedActions(service: TestService, site: TestSite, prefix: string): Promise<string[]> {
  return (await auditActions(service, site, `&filter[action][_starts_with]=${encodeURIComponent(prefix)}`)).map((entry) => entry.action);
}

/** A site created with a name of its own, its administrator signed in. */
export async function createNamedSite(service: TestService, name: string): Promise<TestSite> {
  const siteId = uniqueSiteId('n');
  const adminEmail = `admin@${siteId}.test`;
  const adminPassword = 'correct horse battery staple';
  const created = await service.request('POST', '/instance/sites', { token: INSTANCE_TOKEN, body: { id: siteId, name, adminEmail, adminPassword } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const login = await service.request('POST', '/auth/login', { site: siteId, body: { email: adminEmail, password: adminPassword } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  return { siteId, adminEmail, adminPassword, adminToken: login.body.data.token, adminUserId: login.body.data.user.id };
}

/**
 * A request with the given Host header and no X-Svc-Site (fetch would not send the Host given), so
 * that the service resolves the site from the Host alone.
 */
export function requestWithHost(service: TestService, method: string, path: string, options: { host: string; token?: string; site?: string }): Promise<TestResponse> {
  const url = new URL(`${service.url}/api/v1${path}`);
  const headers: Record<string, string> = { host: options.host };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.site) headers['x-svc-site'] = options.site;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: keep the text
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: incoming.statusCode ?? 0, headers: responseHeaders, body: body as any });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
