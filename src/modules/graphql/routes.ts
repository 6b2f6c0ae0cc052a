// /graphql: GraphQL per site with graphql-yoga (docs/graphql.md). POST runs queries and mutations
// (a plain JSON POST directly with graphql-js, ./directExecution.ts, the same rules and errors),
// GET or POST with `Accept: text/event-stream` streams subscriptions (SSE), and outside production
// GET serves GraphiQL (its assets from this service, ./graphiql.ts) and introspection answers.
// Same tokens and headers as REST. Every answer is HTTP 200 with `errors[]` carrying
// `extensions.code` and `extensions.status`, refusals of the request itself (no site, a bad token)
// included; a request without credentials gets no data.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga, type Plugin } from 'graphql-yoga';
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { toAppError } from '../../server/errorHandler.ts';
import { localeOf } from '../items/contentHeaders.ts';
import type { RealtimeService } from '../realtime/realtimeService.ts';
import { createDirectExecutor, directRequestOf } from './directExecution.ts';
import { graphiqlOptions, graphiqlPageHeaders, registerGraphiqlAssets, renderGraphiqlPage } from './graphiql.ts';
import { asValidationError, graphqlError, graphqlErrorOf } from './errors.ts';
import { costLimitRule, depthLimitRule, queryLimitsFromConfig } from './limits.ts';
import { createRelationReads } from './relationReads.ts';
import type { GraphqlContext } from './resolvers.ts';
import { createGraphqlSchemaCache } from './schemaCache.ts';

export const GRAPHQL_PATH = '/api/v1/graphql';
/** The signal of a request that streams nothing. */
const NEVER = new AbortController().signal;

interface ServerContext {
  req: FastifyRequest;
  reply: FastifyReply;
  /** The GraphQL context of this request, built before yoga runs (null for GraphiQL's page). */
  graphql: GraphqlContext | null;
}

/**
 * Adds validation rules to every operation, subscriptions included (they run before anything
 * executes), and gives parse and validation errors the spec's code VALIDATION.
 */
function validation(rules: ValidationRule[]): Plugin {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof Error) replaceParseResult(asValidationError(result));
      };
    },
    onValidate({ addValidationRule }) {
      for (const rule of rules) addValidationRule(rule);
      return ({ valid, result, setResult }) => {
        if (!valid) setResult(result.map(asValidationError));
      };
    },
  };
}

/** A request refused before GraphQL ran (site, token): the GraphQL answer, HTTP 200 with the error. */
function refuse(reply: FastifyReply, error: unknown) {
  const appError = toAppError(error as FastifyError);
  const graphql = graphqlErrorOf(appError ?? error);
  return reply.status(200).header('content-type', 'application/json; charset=utf-8').send({ errors: [graphql.toJSON()] });
}

export async function graphqlRoutes(app: FastifyInstance, { context }: ServerDeps, realtime: RealtimeService | null): Promise<void> {
  const production = context.config.NODE_ENV === 'production';
  const limits = queryLimitsFromConfig(context.config);
  const schemas = createGraphqlSchemaCache();
  const rules = [depthLimitRule(limits), costLimitRule(limits), ...(production ? [NoSchemaIntrospectionCustomRule] : [])];

  const direct = createDirectExecutor(rules);
  const yoga = createYoga<ServerContext, GraphqlContext>({
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: production ? false : (_request, { req }) => graphiqlOptions(req, GRAPHQL_PATH),
    renderGraphiQL: renderGraphiqlPage(`${GRAPHQL_PATH}/assets`),
    landingPage: false,
    // CORS is the server's one policy (src/server/cors.ts); yoga's own permissive default would override it.
    cors: false,
    logging: false,
    // Resolvers throw GraphQL errors with their codes; anything else is masked as INTERNAL.
    maskedErrors: { maskError: (error) => asValidationError((error as { originalError?: unknown }).originalError ?? error) },
    schema: async ({ graphql }) => schemas.schemaFor(await context.schemas.site(graphql!.request.siteId), graphql!.access).schema,
    context: ({ graphql }) => graphql!,
    plugins: [validation(rules)],
  });

  async function send(reply: FastifyReply, response: Response) {
    response.headers.forEach((value, key) => reply.header(key, value));
    // Errors travel in the body with their own status (yoga answers some with 4xx): always 200.
    reply.status(200);
    return reply.send(response.body);
  }

  /** GraphiQL's page (yoga renders it before any schema or context is needed), with its assets from this service. */
  async function serveGraphiql(request: FastifyRequest, reply: FastifyReply) {
    const response = await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply, graphql: null });
    return send(graphiqlPageHeaders(reply), response);
  }
  const wantsGraphiql = (request: FastifyRequest) => !production && request.method === 'GET' && (request.headers.accept ?? '').includes('text/html');
  if (!production) registerGraphiqlAssets(app, '/graphql/assets');

  // Open subscription streams end when the server closes, so they do not hold up its shutdown.
  const open = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const controller of open) controller.abort();
  });

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    // A browser on a site's domain (or sending X-Svc-Site) gets the page too, its site prefilled.
    if (wantsGraphiql(request)) return serveGraphiql(request, reply);
    if (request.principal.kind === 'anonymous') {
      return reply.status(200).send({ errors: [graphqlError('UNAUTHENTICATED', 'GraphQL needs a token: a login JWT, an svk_ API key or an identity provider JWT', 401).toJSON()] });
    }
    const site = await context.schemas.site(request.siteId);
    const access = await request.access();
    const locale = localeOf(request) ?? site.defaultLanguage;
    const plain = request.method === 'POST' && !(request.headers.accept ?? '').includes('text/event-stream') ? directRequestOf(request.body) : null;
    if (plain) {
      // A query or mutation answers within the request: nothing to abort.
      const result = await direct.run(schemas.schemaFor(site, access).schema, plain, { app: context, request, access, realtime, signal: NEVER, locale, reads: createRelationReads({ app: context, request, locale }) });
      if (result) return reply.status(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(result));
    }
    const aborted = new AbortController();
    open.add(aborted);
    request.raw.on('close', () => {
      aborted.abort();
      open.delete(aborted);
    });
    const graphql: GraphqlContext = { app: context, request, access, realtime, signal: aborted.signal, locale, reads: createRelationReads({ app: context, request, locale }) };
    return send(reply, await yoga.handleNodeRequestAndResponse(request, reply, { req: request, reply, graphql }));
  }

  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    config: { site: 'required', access: 'public', rateLimit: 'itemsRead' },
    schema: { tags: ['graphql'], hide: true },
    errorHandler: (error, request, reply) => {
      // GraphiQL is a page for a browser, which sends no site or token to load it.
      if (wantsGraphiql(request)) return serveGraphiql(request, reply);
      return refuse(reply, error);
    },
    handler: handle,
  });
}
