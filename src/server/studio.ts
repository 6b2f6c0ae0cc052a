// The Studio (studio/, the editors' web app) as static files at /studio: hashed assets cached for a year,
// the page never, every client-side path answered with the page, and a Content-Security-Policy that lets
// the page load only its own files and talk only to this service. Extension panels run in sandboxed
// frames without the page's origin (docs/studio.md).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build --workspace studio` writes the Studio (SVC_STUDIO_DIR overrides it). */
export const DEFAULT_STUDIO_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'studio', 'dist');

export const STUDIO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  // The API and its realtime WebSocket are on this origin ('self' covers ws: and wss: of it).
  "connect-src 'self'",
  "frame-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** What every answer under /studio carries, the page and its files alike. */
const STUDIO_HEADERS: Record<string, string> = {
  'content-security-policy': STUDIO_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

export async function registerStudio(app: FastifyInstance, directory: string): Promise<void> {
  const page = join(directory, 'index.html');
  if (!existsSync(page)) {
    const notBuilt = async (_request: unknown, reply: FastifyReply) =>
      reply.status(503).type('text/plain; charset=utf-8').send('The Studio is not built here: run `npm run build:studio` (npm start builds it when it is missing).');
    app.get('/studio', { config: { access: 'public' }, schema: { hide: true } }, notBuilt);
    app.get('/studio/*', { config: { access: 'public' }, schema: { hide: true } }, notBuilt);
    return;
  }
  const assets = join(directory, 'assets');
  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/studio/',
    // One route per built file (the build does not change while the service runs); other paths are the app's.
    wildcard: false,
    cacheControl: false,
    setHeaders: (response, path) => {
      response.headers(STUDIO_HEADERS);
      response.header('cache-control', path.startsWith(assets) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get('/studio/*', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    // A missing asset is a 404, not the page (a stale tab asking for an old bundle must not get HTML).
    if ((request.params as { '*': string })['*'].startsWith('assets/')) return reply.status(404).send();
    return reply.headers(STUDIO_HEADERS).header('cache-control', 'no-cache').sendFile('index.html', directory);
  });
}
