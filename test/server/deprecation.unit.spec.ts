import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { retiringRoute } from '../../src/server/deprecation.ts';
import { handleError } from '../../src/server/errorHandler.ts';

const retirement = {
  deprecatedAt: new Date('2026-01-01T00:00:00Z'),
  sunsetAt: new Date('2027-01-01T00:00:00Z'),
  link: 'https://example.test/changelog#v2',
};

async function tinyServer() {
  const app = Fastify();
  app.setErrorHandler(handleError);
  app.get('/old', { onRequest: retiringRoute(retirement) }, async () => ({ data: 'still here' }));
  app.get('/old-failing', { onRequest: retiringRoute(retirement) }, async () => {
    throw new AppError('NOT_FOUND', 'gone');
  });
  app.get('/current', async () => ({ data: 'fresh' }));
  await app.ready();
  return app;
}

describe('retiringRoute', () => {
  it('adds Deprecation (RFC 9745), Sunset (RFC 8594) and a deprecation Link to a retiring route', async () => {
    const app = await tinyServer();
    const response = await app.inject({ method: 'GET', url: '/old' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: 'still here' });
    expect(response.headers.deprecation).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    expect(response.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(response.headers.link).toBe('<https://example.test/changelog#v2>; rel="deprecation"; type="text/html"');
    await app.close();
  });

  it('keeps the headers on error answers, and leaves other routes alone', async () => {
    const app = await tinyServer();
    const failing = await app.inject({ method: 'GET', url: '/old-failing' });
    expect(failing.statusCode).toBe(404);
    expect(failing.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(failing.headers.deprecation).toBeDefined();
    const current = await app.inject({ method: 'GET', url: '/current' });
    expect(current.headers.deprecation).toBeUndefined();
    expect(current.headers.sunset).toBeUndefined();
    expect(current.headers.link).toBeUndefined();
    await app.close();
  });
});
