// The HTTP server: Fastify under /api/v1 with the spec's envelopes, request ids, site resolution,
// authentication and route-level access declared once as hooks.
import type { Logger } from 'pino';
import type { EventMetadata } from '../../domain/shared/events.ts';
import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import '../../domain/shared/zodMessages.ts';
import { AppError, errors } from '../../domain/shared/appError.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../domain/shared/jsonDepth.ts';
import { findUnstorableText } from '../../domain/shared/storableText.ts';
import { constantTimeEqual } from '../../infra/crypto/secrets.ts';
import { createAccessTokenIssuer } from '../auth/accessTokens.ts';
import { createAuthenticationChain, internalJwtAuthenticator } from '../auth/authenticate.ts';
import { accessFor } from '../access/access.ts';
import { assertPrincipalMeets } from '../auth/accessLevels.ts';
import { actorOf, type Principal } from '../auth/principal.ts';
import { declaredProvenance } from '../modules/git/provenance.ts';
import { registerModules } from '../modules/index.ts';
import type { CustomRateLimit } from '../rateLimit/limits.ts';
import { createRateLimiting } from '../rateLimit/rateLimitHook.ts';
import type { AppContext } from '../runtime/context.ts';
import { handleClientError, handleUnmetExpectation, requireHostHeader } from './clientErrors.ts';
import { createCorsPolicy, registerCors } from './cors.ts';
import { handleError, handleFrameworkError, handleNotFound, unsupportedMediaType } from './errorHandler.ts';
import type { ServerDeps } from './serverDeps.ts';
import './routeConfig.ts';
import { DEFAULT_STUDIO_DIR, registerStudio } from './studio.ts';
import { registerOpenApi, registerOpenApiDocument } from './openapi.ts';
import { createSiteResolver } from './siteResolution.ts';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{8,128}$/;

export async function buildServer(context: AppContext): Promise<FastifyInstance> {
  const { config } = context;
  const app = Fastify({
    loggerInstance: context.logger as FastifyBaseLogger,
    bodyLimit: config.SVC_BODY_LIMIT,
    trustProxy: config.SVC_TRUST_PROXY,
    logController: new LogController({ disableRequestLogging: config.LOG_LEVEL !== 'debug' && config.LOG_LEVEL !== 'trace' }),
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    // A path parameter may be an email address, URL-encoded (DELETE /email/suppressions/:email: 254 characters, up to three each).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1_000 },
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
    // Node's bare 400 for an HTTP/1.1 request without Host becomes requireHostHeader's envelope.
    http: { requireHostHeader: false },
    // While closing, requests on open connections are still served (with Connection: close) instead of
    // a bare 503: a load balancer's keep-alive connection may carry one more request.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.server.on('checkExpectation', handleUnmetExpectation);
  app.addHook('onRequest', requireHostHeader);
  // JSON bodies are bounded in depth before they are parsed, so that no walk of a body recurses
  // without a bound (the storable-text check below, schemas, the query compiler). An empty body is no
  // body (what a client sends with the JSON content type and nothing to say, e.g. POST
  // /releases/:id/publish): a route whose body is optional takes it, a route that needs one answers
  // its validation error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonNestsDeeperThan(text)) {
      done(new AppError('VALIDATION_FAILED', `The body nests deeper than ${MAX_JSON_DEPTH} levels`, { path: ['body'] }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  // text/plain (what fetch sends for a string body, and navigator.sendBeacon) reaches a route as text
  // only when the route reads its body itself (the pageview beacon); a route with a body schema takes
  // JSON, and is told so with 415 rather than a validation error about a string.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (request.routeOptions.schema?.body !== undefined) {
      done(unsupportedMediaType('text/plain'), undefined);
      return;
    }
    done(null, body.toString());
  });

  // CORS first after the Host check: every answer below (401, 403, 429, a validation error) carries
  // the headers a page needs to read it (src/server/cors.ts).
  const rateLimiting = createRateLimiting({ config, logger: context.logger });
  context.onClose(() => rateLimiting.close());
  // A site lookup that misses the cache costs a query: counted per client IP before it runs
  // (SVC_RATE_LIMIT_SITE_LOOKUP), so a client naming random sites (or origins) is refused before each query.
  const siteLookups: CustomRateLimit = { name: 'siteLookup', limit: config.SVC_RATE_LIMIT_SITE_LOOKUP, per: 'ip' };
  const beforeLookup = (request: FastifyRequest) => rateLimiting.enforce(siteLookups, `ip:${request.ip}`);
  const sites = createSiteResolver(context, { beforeLookup });
  context.onClose(async () => sites.close());
  const corsPolicy = createCorsPolicy(context, { sites, beforeLookup });
  context.onClose(async () => corsPolicy.close());
  await registerCors(app, corsPolicy);

  await app.register(fastifyCookie);
  // WebSocket routes (`websocket: true`), e.g. /realtime; client frames are small JSON.
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await registerOpenApi(app, context);

  const tokens = createAccessTokenIssuer(config.SVC_SECRET, config.SVC_ACCESS_TOKEN_TTL);
  const deps: ServerDeps = { context, tokens, sites, authenticators: [], healthChecks: {} };
  const internalJwt = internalJwtAuthenticator(context, tokens);
  const authenticate = createAuthenticationChain(() => [...deps.authenticators, internalJwt]);

  app.decorateRequest('siteId', '');
  app.decorateRequest('principal', null as never);
  app.decorateRequest('accessPromise', null);
  app.decorateRequest('access', function (this: FastifyRequest) {
    this.accessPromise ??= accessFor(context, this.siteId, this.principal);
    return this.accessPromise;
  });
  app.decorateRequest('gitProvenance', undefined);
  app.decorateRequest('metadata', {
    getter(this: FastifyRequest) {
      const metadata: EventMetadata = { actor: actorOf(this.principal), requestId: this.id };
      if (this.gitProvenance) metadata.git = this.gitProvenance;
      return metadata;
    },
  });
  // Graceful close: in-flight requests finish, then their keep-alive connections are closed as soon as
  // they are idle instead of lingering for the keep-alive timeout, so close() ends promptly.
  let closing = false;
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (closing) reply.header('Connection', 'close');
  });
  // Request durations by route pattern (never the raw URL: a bounded set of labels), when metrics are on.
  if (config.SVC_METRICS) {
    const { httpRequestDuration } = context.metrics;
    app.addHook('onResponse', async (request, reply) => {
      httpRequestDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1_000);
    });
  }
  app.addHook('preClose', async () => {
    closing = true;
    const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
    app.server.once('close', () => clearInterval(reaper));
  });
  app.addHook('onRequest', async (request) => {
    const version = request.headers['x-svc-api-version'];
    if (version !== undefined && version !== '1') {
      throw new AppError('VALIDATION_FAILED', 'Unsupported X-Svc-API-Version; this server speaks version 1', {
        path: ['headers', 'x-svc-api-version'],
      });
    }
    const routeConfig = request.routeOptions.config;
    request.principal = { kind: 'anonymous' };
    // No route: the 404 answers, whatever credentials came (a token checked without a site would
    // answer 401 for a path that does not exist).
    if (request.is404) return;
    if (routeConfig.access === 'instance') {
      request.principal = authorizeInstance(request, config.SVC_INSTANCE_TOKEN);
      return;
    }
    // A public route without a site reads no principal (the OpenAPI document, health, version): the
    // credentials that came along, valid, invalid or for another site, cannot fail it.
    if ((routeConfig.access ?? 'public') === 'public' && routeConfig.site !== 'required') return;
    if (routeConfig.site === 'required') {
      request.siteId = await sites.resolve(request);
      // Every line logged for this request from here on carries its site beside its request id.
      // Set on the request's own child logger (reply.log is the same): a child of it would cost a
      // prototype per request.
      (request.log as Logger).setBindings({ siteId: request.siteId });
    }
    const token = bearerToken(request);
    if (token) request.principal = await authenticate({ token, siteId: request.siteId || null });
    const access = routeConfig.access ?? 'public';
    if (access === 'public') return;
    if (request.principal.kind === 'anonymous') throw errors.unauthenticated();
    assertPrincipalMeets(access, request.principal);
  });
  app.addHook('onRequest', async (request) => {
    request.gitProvenance = declaredProvenance(request.headers);
  });
  // After authentication, so per-user limits know the principal (routes opt in with config.rateLimit).
  app.addHook('onRequest', rateLimiting.onRequest);
  // A route that declares a capability checks it after the areas' own onRequest hooks and the input
  // checks, as a handler's first line would; other routes pay nothing for it.
  app.addHook('onRoute', (route) => {
    const capability = route.config?.capability;
    if (!capability) return;
    const check = async (request: FastifyRequest) => {
      if (!(await request.access()).hasCapability(capability)) throw errors.forbidden(`This needs the ${capability} capability`);
    };
    route.preHandler = [check, ...(route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler])];
  });
  // Every JSON body, path parameter and query parameter, before its route's schema: text PostgreSQL
  // cannot store (NUL, a lone surrogate) is a 400 at its path, whatever route it was sent to and
  // whichever column or comparison it was bound for.
  app.addHook('preValidation', async (request) => {
    const parts = request.routeOptions.config.checksOwnPath ? ([['query', request.query]] as const) : ([['params', request.params], ['query', request.query]] as const);
    for (const [part, values] of parts) {
      const unstorable = findUnstorableText(values);
      if (unstorable) throw new AppError('VALIDATION_FAILED', `Text ${unstorable.reason}`, { path: [part, ...unstorable.path] });
    }
    if (typeof request.body !== 'object' || request.body === null) return;
    // A raw body (the upload routes pass the request stream through) is bytes, not JSON.
    if (!Array.isArray(request.body) && Object.getPrototypeOf(request.body) !== Object.prototype) return;
    const unstorable = findUnstorableText(request.body);
    if (unstorable) throw new AppError('VALIDATION_FAILED', `Text ${unstorable.reason}`, { path: ['body', ...unstorable.path] });
  });

  await app.register(async (api) => registerModules(api, deps), { prefix: '/api/v1' });
  registerOpenApiDocument(app);
  await registerStudio(app, config.SVC_STUDIO_DIR ?? DEFAULT_STUDIO_DIR);
  return app;
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw errors.unauthenticated('The Authorization header must be "Bearer <token>"');
  return match[1]!;
}

function authorizeInstance(request: FastifyRequest, instanceToken: string | undefined): Principal {
  const header = request.headers.authorization ?? '';
  const presented = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  if (!instanceToken || !presented || !constantTimeEqual(presented, instanceToken)) {
    throw errors.unauthenticated('A valid instance token is required');
  }
  return { kind: 'instance' };
}
