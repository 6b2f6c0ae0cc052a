// The OpenAPI document is good enough to generate a client from: it lints clean with Redocly's
// recommended rules, every reference resolves, and every operation says what it does, what it
// answers and how it refuses. A route added without a catalogue entry fails here.
import { bundleFromString, createConfig, lintFromString } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationKey } from '../../src/server/openapi/documentOperation.ts';
import { operationCatalogue } from '../../src/server/openapi/operations/index.ts';
import { createCollection } from '../support/contentModel.ts';
import { createTestSite, startTestServiceForFile } from '../support/testService.ts';

const service = await startTestServiceForFile();
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface Operation {
  method: string;
  path: string;
  operation: any;
}

let document: any;
let source: string;
let operations: Operation[];

beforeAll(async () => {
  const response = await service.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  document = response.body;
  source = JSON.stringify(document);
  operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
});

function resolve(schema: any): any {
  if (schema?.$ref) return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  return schema;
}

describe('the OpenAPI document as a whole', () => {
  it('lints with no error under Redocly’s recommended rules, and no warning but the API’s own ambiguous paths', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const described = problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message}`);
    expect(described.filter((line) => line.startsWith('error'))).toEqual([]);
    // The routes themselves: /users/subscriber-access/{collection} and /users/{id}/<action> match the same
    // URLs by shape (Fastify prefers the static segment); only renaming a route would remove these.
    expect(described.filter((line) => !line.includes('/api/v1/users/subscriber-access/{collection}'))).toEqual([]);
    expect(described.length).toBeLessThanOrEqual(2);
  });

  it('resolves every reference it makes (bundling reports nothing unresolved)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const { problems } = await bundleFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => problem.message)).toEqual([]);
    const references = [...source.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of new Set(references)) {
      expect(reference, reference).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[reference.replace('#/components/schemas/', '')], reference).toBeDefined();
    }
  });

  it('hoists a recursive body schema into a component instead of a dangling schema0', () => {
    expect(source).not.toContain('schema0');
    const body = document.paths['/api/v1/me/preferences'].patch.requestBody.content['application/json'].schema;
    expect(body.additionalProperties).toEqual({ $ref: '#/components/schemas/JsonValue' });
    expect(document.components.schemas.JsonValue.anyOf).toContainEqual({ type: 'array', items: { $ref: '#/components/schemas/JsonValue' } });
  });
});

describe('every operation', () => {
  it('has a catalogue entry: a summary, a description with its access rule, and a unique operation id', () => {
    const missing = operations.filter(({ operation }) => !operation.summary).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
    for (const { method, path, operation } of operations) {
      expect(operation.description, `${method} ${path}`).toMatch(/Public|Needs/);
    }
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers a documented success: a 2xx with a schema, or a documented body-less status', () => {
    for (const { method, path, operation } of operations) {
      const successes = Object.entries(operation.responses as Record<string, any>).filter(([status]) => /^[23]/.test(status));
      expect(successes.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        expect(response.description, `${method} ${path} ${status}`).not.toBe('Default Response');
        if (status === '204' || status.startsWith('3')) continue;
        const [content] = Object.values(response.content ?? {}) as any[];
        expect(content?.schema, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it('answers JSON successes in the spec’s envelope { data, meta? }, but for the two downloads and MCP’s JSON-RPC', () => {
    // The MCP endpoint answers JSON-RPC 2.0 messages, which the protocol shapes (docs/mcp.md).
    const downloads = ['/api/v1/me/data-export', '/api/v1/admin/sar/export', '/api/v1/mcp'];
    for (const { method, path, operation } of operations.filter(({ path }) => !downloads.includes(path))) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const schema = response.content?.['application/json']?.schema;
        if (!status.startsWith('2') || !schema) continue;
        expect(resolve(schema).required, `${method} ${path} ${status}`).toContain('data');
      }
    }
  });

  it('lists its error codes, each status an error envelope naming the codes of that status', () => {
    for (const { method, path, operation } of operations) {
      const errors = Object.entries(operation.responses as Record<string, any>).filter(([status]) => /^[45]/.test(status));
      expect(errors.map(([status]) => status), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '500']));
      for (const [status, response] of errors) {
        const schema = response.content['application/json'].schema;
        expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
        const codes: string[] = schema.allOf[1].properties.errors.items.properties.code.enum;
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(response.description).toContain(code);
      }
      if (operation.security.length > 0 && JSON.stringify(operation.security).includes('bearer')) {
        expect(operation.responses['401'], `${method} ${path}`).toBeDefined();
      }
      const key = operationKey(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1'));
      if ((operation.parameters ?? []).some((parameter: any) => parameter.in === 'path') && operationCatalogue[key]?.notFound !== false) {
        expect(operation.responses['404'], `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('has no catalogue entry left without its route', () => {
    const documented = new Set(operations.map(({ method, path }) => operationKey(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1'))));
    expect(Object.keys(operationCatalogue).filter((key) => !documented.has(key))).toEqual([]);
  });
});

describe('what the document says of particular operations', () => {
  it('names the delivery page wildcard {path}', () => {
    const page = document.paths['/api/v1/deliver/page/{path}'].get;
    expect(page.parameters).toContainEqual(expect.objectContaining({ in: 'path', name: 'path', required: true }));
    expect(Object.keys(document.paths).filter((path) => path.includes('*'))).toEqual([]);
  });

  it('types an item by its structural fields and lets the site’s content fields through', () => {
    const item = document.components.schemas.Item;
    expect(Object.keys(item.properties)).toEqual(expect.arrayContaining(['id', 'status', 'createdAt', 'updatedAt']));
    expect(item.additionalProperties).toBe(true);
    expect(item.description).toMatch(/runtime/);
    const read = document.paths['/api/v1/items/{collection}/{id}'].get.responses['200'].content['application/json'].schema;
    expect(read.properties.data).toEqual({ $ref: '#/components/schemas/Item' });
  });

  it('lists the codes a route answers beyond its config: a release publish’s EMPTY_RELEASE, its 422 input errors', () => {
    const publish = document.paths['/api/v1/releases/{id}/publish'].post.responses;
    expect(publish['422'].content['application/json'].schema.allOf[1].properties.errors.items.properties.code.enum).toContain('EMPTY_RELEASE');
    expect(publish['409'].description).toContain('ALREADY_PUBLISHED');
  });

  it('does not change what a route answers: an item still carries its content fields', async () => {
    const site = await createTestSite(service);
    await createCollection(service, site, 'notes', [{ field: 'title', type: 'string' }]);
    const item = await service.request('POST', '/items/notes', { site: site.siteId, token: site.adminToken, body: { title: 'Kept' } });
    expect(item.status).toBe(201);
    const read = await service.request('GET', `/items/notes/${item.body.data.id}`, { site: site.siteId, token: site.adminToken });
    expect(read.body.data).toMatchObject({ id: item.body.data.id, title: 'Kept' });
  });
});
