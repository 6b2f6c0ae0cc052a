// GraphiQL served by the service itself, outside production (docs/graphql.md "GraphiQL"): the page
// yoga renders through `renderGraphiQL` loads its script, styles and Monaco's editor workers from
// `/api/v1/graphql/assets/<version>/…` (the installed @graphql-yoga/graphiql package), never from a
// CDN, under a Content-Security-Policy that allows nothing but this origin. The headers pane starts
// with `X-Svc-Site`: the page's `?site=`, else the site the request was resolved to (a site's domain,
// or the header itself).
import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { AppError } from '../../../domain/shared/appError.ts';

export const GRAPHIQL_TITLE = 'Svc GraphiQL';

const packageDirectory = dirname(createRequire(import.meta.url).resolve('@graphql-yoga/graphiql/package.json'));
/** The installed package's version names the assets' URLs, so that they can be cached for good. */
const VERSION = (JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The page's start: Monaco's workers from this origin (the CDN page fetched them into blobs), then
 * GraphiQL with the options the page carries as JSON (no inline script: the CSP allows none).
 */
const START_SCRIPT = `const options = JSON.parse(document.getElementById('graphiql-options').textContent);
const workers = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => new URL(workers[label] ?? workers.editorWorkerService, import.meta.url).toString(),
};
const { renderYogaGraphiQL } = await import('./yoga-graphiql.es.js');
renderYogaGraphiQL(document.getElementById('root'), options);
`;

const JAVASCRIPT = 'text/javascript; charset=utf-8';

interface Asset {
  type: string;
  /** A file of the package's dist/, or the text served. */
  file?: string;
  text?: string;
}

const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['graphiql-start.js', { type: JAVASCRIPT, text: START_SCRIPT }],
  ['yoga-graphiql.es.js', { type: JAVASCRIPT, file: 'yoga-graphiql.es.js' }],
  ['graphiql.css', { type: 'text/css; charset=utf-8', file: 'graphiql.css' }],
  ['editor.worker.js', { type: JAVASCRIPT, file: 'monacoeditorwork/editor.worker.bundle.js' }],
  ['json.worker.js', { type: JAVASCRIPT, file: 'monacoeditorwork/json.worker.bundle.js' }],
  ['graphql.worker.js', { type: JAVASCRIPT, file: 'monacoeditorwork/graphql.worker..bundle.js' }],
]);

/**
 * Only this origin. React and Monaco set styles on elements and in <style> tags, hence
 * 'unsafe-inline' for styles alone; scripts, workers, fetches, fonts and images come from here.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A site id or key as a header value may hold it; anything else is not prefilled. */
const SITE_VALUE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The site the headers pane starts with: `?site=`, else the request's resolved site, else none. */
function siteOf(request: FastifyRequest): string | null {
  const asked = (request.query as Record<string, unknown> | undefined)?.site;
  if (typeof asked === 'string' && SITE_VALUE.test(asked)) return asked;
  return typeof request.siteId === 'string' && request.siteId !== '' ? request.siteId : null;
}

/** yoga's `graphiql` option for a request: the title, the endpoint and the prefilled headers. */
export function graphiqlOptions(request: FastifyRequest, endpoint: string): GraphiQLOptions & { endpoint: string } {
  const site = siteOf(request);
  return {
    title: GRAPHIQL_TITLE,
    endpoint,
    // Without a known site the empty value is the hint: the answer then says the header is missing.
    headers: JSON.stringify({ 'X-Svc-Site': site ?? '' }, null, 2),
    // Tokens typed into the headers pane are not kept in the browser's storage, and the prefilled site is the page's.
    shouldPersistHeaders: false,
  };
}

/** JSON inside <script type="application/json">: nothing in it can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** yoga's `renderGraphiQL`: the page, every asset from `assetsPath`. */
export function renderGraphiqlPage(assetsPath: string) {
  return (options: GraphiQLOptions): string => {
    const title = escapeHtml(options.title ?? GRAPHIQL_TITLE);
    const assets = `${assetsPath}/${VERSION}`;
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root">Loading ${title}…</div>
<script id="graphiql-options" type="application/json">${scriptJson(options)}</script>
<script type="module" src="${assets}/graphiql-start.js"></script>
</body>
</html>
`;
  };
}

/** The page's headers: the CSP, and no caching (its headers pane holds the request's site). */
export function graphiqlPageHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', GRAPHIQL_CSP).header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
}

/** GET <url>/:version/:file: the page's assets, immutable for their version (another version is 404). */
export function registerGraphiqlAssets(app: FastifyInstance, url: string): void {
  app.get<{ Params: { version: string; file: string } }>(
    `${url}/:version/:file`,
    { config: { site: 'none', access: 'public' }, schema: { tags: ['graphql'], hide: true } },
    async (request, reply) => {
      const asset = ASSETS.get(request.params.file);
      if (!asset || request.params.version !== VERSION) throw new AppError('NOT_FOUND', 'No such GraphiQL asset', { path: ['params', asset ? 'version' : 'file'] });
      reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'same-origin');
      if (asset.text !== undefined) return reply.send(asset.text);
      return reply.send(createReadStream(join(packageDirectory, 'dist', asset.file!)));
    },
  );
}
