import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { handleError } from '../../src/server/errorHandler.ts';

async function tinyServer() {
  const app = Fastify({ logger: false, genReqId: () => 'req-0123456789' });
  app.setErrorHandler(handleError);
  app.get('/app-error', async () => {
    throw new AppError('RATE_LIMITED', 'slow down', { path: ['query'], extensions: { limit: 1 }, headers: { 'Retry-After': '7' } });
  });
  app.get('/bug', async () => {
    throw new TypeError('secret internals at /srv/app.ts:12');
  });
  await app.ready();
  return app;
}

describe('the error handler', () => {
  it('writes an AppError as the spec envelope with its status, path, extensions and headers', async () => {
    const app = await tinyServer();
    const response = await app.inject({ method: 'GET', url: '/app-error' });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.json()).toEqual({ errors: [{ code: 'RATE_LIMITED', message: 'slow down', path: ['query'], extensions: { limit: 1 } }] });
    await app.close();
  });

  it('answers an unexpected failure with 500 INTERNAL and the request id, never the message or a stack', async () => {
    const app = await tinyServer();
    const response = await app.inject({ method: 'GET', url: '/bug' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ errors: [{ code: 'INTERNAL', message: 'Internal error', path: [], extensions: { requestId: 'req-0123456789' } }] });
    expect(response.body).not.toMatch(/secret|\.ts|TypeError/);
    await app.close();
  });
});
