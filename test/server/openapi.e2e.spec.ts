import { describe, expect, it } from 'vitest';
import { buildServer } from '../../src/server/app.ts';
import { startTestServiceForFile } from '../support/testService.ts';

const service = await startTestServiceForFile();

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document listing the routes with their methods and schemas', async () => {
    const response = await service.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(service.context.version);
    const routes: [string, string][] = [
      ['post', '/api/v1/auth/login'],
      ['post', '/api/v1/auth/refresh'],
      ['post', '/api/v1/auth/logout'],
      ['get', '/api/v1/auth/me'],
      ['get', '/api/v1/audit'],
      ['get', '/api/v1/audit/verify'],
      ['get', '/api/v1/utils/health'],
      ['get', '/api/v1/utils/version'],
      ['get', '/api/v1/instance/sites'],
      ['post', '/api/v1/instance/sites'],
      ['delete', '/api/v1/instance/sites/{id}'],
    ];
    for (const [method, path] of routes) expect(document.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    const login = document.paths['/api/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema).toMatchObject({ required: ['email', 'password'] });
    expect(document.paths['/api/v1/openapi.json']).toBeUndefined();
  });
});

describe('GET /reference', () => {
  it('serves the API reference page outside production', async () => {
    const response = await fetch(`${service.url}/api/v1/reference`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/swagger/i);
  });

  it('is not served in production, while the OpenAPI document still is', async () => {
    const production = await buildServer({ ...service.context, config: { ...service.context.config, NODE_ENV: 'production' } });
    try {
      const reference = await production.inject({ method: 'GET', url: '/api/v1/reference' });
      expect(reference.statusCode).toBe(404);
      expect(reference.json().errors[0].code).toBe('NOT_FOUND');
      const openapi = await production.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      expect(openapi.statusCode).toBe(200);
    } finally {
      await production.close();
    }
  });
});
