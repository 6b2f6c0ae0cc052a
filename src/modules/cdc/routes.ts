// The change feed over HTTP: GET /cdc/events (keyset pages, long-poll) and /cdc/subscriptions.
// Frontend-realm tokens are refused on every route here.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import type { ChangeFeedRuntime } from './changeFeedRuntime.ts';
import { logSensitiveReads } from '../items/sensitiveReads.ts';
import { revealEnvelopes } from './feedReveal.ts';
import { parseFeedFilter } from './feedEnvelope.ts';
import { readFeedPage, type FeedPage } from './feedQueries.ts';
import { feedViewFor } from './feedVisibility.ts';
import { findSubscription, listDeliveries, listSubscriptions, type SubscriptionView } from './subscriptionQueries.ts';
import { acknowledgeBody, cdcCommands, createSubscriptionBody, replayBody, subscriptionIdParams, updateSubscriptionBody } from './commands.ts';
import { commandCaller } from '../../server/routeKit.ts';

export const MAX_EVENTS_LIMIT = 500;
export const MAX_WAIT_SECONDS = 25;
/** A lost notification only delays a long-poll by this much. */
const LONG_POLL_FALLBACK_MS = 5_000;

const siteAdmin = { site: 'required' as const, access: 'siteAdmin' as const };
/** `cdc:subscribe`: site administrators have it; a policy grants it to others (src/access). */
const subscriber = { site: 'required' as const, access: 'bearer' as const, capability: 'cdc:subscribe' };

const idParams = subscriptionIdParams;

/** `runtime` is the area's watcher, queue and webhook reactor (changeFeedRuntime.ts, started by its manifest). */
export async function cdcRoutes(app: FastifyInstance, { context, healthChecks }: ServerDeps, runtime: ChangeFeedRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { cursors } = runtime;
  // The health answer's `broker` with NATS_URL: only nats subscriptions wait on it, and they resume
  // when it is back, so its outage degrades the service rather than failing it.
  if (runtime.probeBroker) healthChecks.broker = { run: runtime.probeBroker, degradable: true };

  app.addHook('onRequest', async (request) => {
    if (request.principal.kind === 'user' && request.principal.realm === 'frontend') {
      throw errors.forbidden('Frontend tokens cannot use the change feed');
    }
  });

  async function viewOf(siteId: string, id: string) {
    const view = await context.database.withSite(siteId, (tx) => findSubscription(tx, siteId, id, new Date(), cursors.forSite(siteId), runtime.natsSink));
    if (!view) throw new AppError('NOT_FOUND', 'Subscription not found');
    return view;
  }

  api.get(
    '/cdc/events',
    {
      config: subscriber,
      schema: {
        tags: ['cdc'],
        querystring: z.object({
          cursor: z.string().max(200).optional(),
          collections: z.string().max(4_000).optional(),
          operations: z.string().max(400).optional(),
          limit: z.coerce.number().int().min(1).max(MAX_EVENTS_LIMIT).default(100),
          wait: z.coerce.number().int().min(0).max(MAX_WAIT_SECONDS).default(0),
        }),
      },
    },
    async (request, reply) => {
      const { siteId } = request;
      const filter = parseFeedFilter(request.query);
      const siteCursors = cursors.forSite(siteId);
      let afterSeq = request.query.cursor === undefined ? null : siteCursors.decode(request.query.cursor, ['query', 'cursor']);
      // The reader sees what its read permissions reach (feedVisibility.ts); administrators, everything.
      const schema = await context.schemas.site(siteId);
      const view = feedViewFor(await request.access(), schema);
      const read = () => context.database.withSite(siteId, (tx) => readFeedPage(tx, siteId, { afterSeq, filter, limit: request.query.limit, view, cursors: siteCursors }));
      let page: FeedPage;
      if (request.query.wait === 0) {
        page = await read();
      } else {
        const deadline = Date.now() + request.query.wait * 1000;
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        for (;;) {
          // Listen before reading, so an entry committed between the read and the wait still wakes us.
          const round = new AbortController();
          const stopRound = () => round.abort();
          gone.signal.addEventListener('abort', stopRound, { once: true });
          const grown = runtime.watcher.next(siteId, Math.min(LONG_POLL_FALLBACK_MS, deadline - Date.now()), round.signal);
          try {
            page = await read();
            if (page.entries.length > 0 || Date.now() >= deadline || gone.signal.aborted) break;
            // Everything read was left out for this reader: go on after it, at once while more is there.
            afterSeq = page.nextSeq;
            if (page.hasMore) continue;
            await grown;
          } finally {
            stopRound();
            gone.signal.removeEventListener('abort', stopRound);
          }
        }
      }
      const entries = await context.database.withSiteReads(siteId, (tx) => revealEnvelopes(context, tx, schema, view, request.metadata, page.entries));
      if (page.sensitive.length > 0) await logSensitiveReads(context, siteId, page.sensitive, request.metadata);
      // The entries are JSON text already (rendered by PostgreSQL with a snapshot from the log put in
      // its place, or by the view for a restricted reader): the page is assembled, not re-serialized.
      const meta = JSON.stringify({ nextCursor: siteCursors.encode(page.nextSeq), hasMore: page.hasMore });
      return reply.type('application/json; charset=utf-8').send(`{"data":[${entries.join(',')}],"meta":${meta}}`);
    },
  );

  api.get('/cdc/subscriptions', { config: siteAdmin, schema: { tags: ['cdc'] } }, async (request) => {
    const subscriptions = await context.database.withSite(request.siteId, (tx) => listSubscriptions(tx, request.siteId, new Date(), cursors.forSite(request.siteId), runtime.natsSink));
    return { data: subscriptions, meta: { total: subscriptions.length } };
  });

  api.post('/cdc/subscriptions', { config: siteAdmin, schema: { tags: ['cdc'], body: createSubscriptionBody } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.run<SubscriptionView>('cdc.createSubscription', request.body, commandCaller(request)) }),
  );

  api.get('/cdc/subscriptions/:id', { config: siteAdmin, schema: { tags: ['cdc'], params: idParams } }, async (request) => ({
    data: await viewOf(request.siteId, request.params.id),
  }));

  api.patch('/cdc/subscriptions/:id', { config: siteAdmin, schema: { tags: ['cdc'], params: idParams, body: updateSubscriptionBody } }, async (request) => ({
    data: await context.commands.run<SubscriptionView>('cdc.updateSubscription', { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.delete('/cdc/subscriptions/:id', { config: siteAdmin, schema: { tags: ['cdc'], params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(cdcCommands.deleteSubscription, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  api.post('/cdc/subscriptions/:id/ack', { config: subscriber, schema: { tags: ['cdc'], params: idParams, body: acknowledgeBody } }, async (request) => ({
    data: await context.commands.run<SubscriptionView>('cdc.acknowledgeSubscription', { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.post('/cdc/subscriptions/:id/replay', { config: siteAdmin, schema: { tags: ['cdc'], params: idParams, body: replayBody } }, async (request) => ({
    data: await context.commands.run<SubscriptionView>('cdc.replaySubscription', { ...request.body, id: request.params.id }, commandCaller(request)),
  }));

  api.post('/cdc/subscriptions/:id/dispatch', { config: siteAdmin, schema: { tags: ['cdc'], params: idParams } }, async (request, reply) =>
    reply.status(202).send({ data: await context.commands.run<SubscriptionView>('cdc.dispatchSubscription', { id: request.params.id }, commandCaller(request)) }),
  );

  api.get(
    '/cdc/subscriptions/:id/deliveries',
    {
      config: siteAdmin,
      schema: {
        tags: ['cdc'],
        params: idParams,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(25), page: z.coerce.number().int().min(1).default(1) }),
      },
    },
    async (request) => {
      const { siteId } = request;
      await viewOf(siteId, request.params.id);
      const { limit, page } = request.query;
      const result = await context.database.withSite(siteId, (tx) => listDeliveries(tx, siteId, request.params.id, { limit, page }, cursors.forSite(siteId)));
      return { data: result.deliveries, meta: { total: result.total, page, pageSize: limit } };
    },
  );
}
