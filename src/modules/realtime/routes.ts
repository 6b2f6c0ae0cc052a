// Realtime over HTTP: tickets (studio and end user) and the WebSocket at /realtime?ticket=. A socket
// lives as long as the credential its ticket was issued to: it is checked when the socket opens and
// followed afterwards (./revocations.ts), closing with 4401 or 4403.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import type WebSocket from 'ws';
import { closeRevoked, newConnectionId } from './realtimeHub.ts';
import type { RealtimeService } from './realtimeService.ts';
import type { RevokeReason } from './revocations.ts';
import { issueTicket, redeemTicket, type RealtimeTicket, type TicketKind } from './tickets.ts';

interface Admission {
  ticket: RealtimeTicket;
  connectionId: string;
  /** Set once the socket is open. */
  socket: WebSocket | null;
  /** A revocation that arrived before the socket opened. */
  revoked: RevokeReason | null;
}

/** `realtime` is the server's one realtime service (the area's runtime, shared with GraphQL). */
export async function realtimeRoutes(app: FastifyInstance, { context }: ServerDeps, realtime: RealtimeService): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const admissions = new WeakMap<FastifyRequest, Admission>();

  async function ticketFor(request: FastifyRequest, kind: TicketKind) {
    const principal = userPrincipal(request.principal);
    if (kind === 'studio' && principal.realm === 'frontend') throw errors.forbidden('Frontend tokens get audience tickets, not studio tickets');
    // The collections its permissions let it read (administrators: every collection).
    const access = await request.access();
    const issued = await issueTicket(context, request.siteId, principal, kind, new Date(), (collection) => access.admin || access.can('read', collection));
    return { data: { ticket: issued.ticket, expiresAt: issued.expiresAt.toISOString(), collections: issued.collections } };
  }

  const ticketRoute = { config: { site: 'required' as const, access: 'bearer' as const }, schema: { tags: ['realtime'] } };
  api.post('/realtime/ticket', ticketRoute, async (request) => ticketFor(request, 'studio'));
  api.post('/realtime/audience-ticket', ticketRoute, async (request) => ticketFor(request, 'audience'));

  api.get(
    '/realtime',
    {
      websocket: true,
      config: { site: 'none', access: 'public' },
      schema: { querystring: z.object({ ticket: z.string().min(1).max(200) }) },
      // Before the upgrade: a refused ticket or a full site is an HTTP answer, not an opened socket.
      preHandler: async (request) => {
        if (!request.ws) throw new AppError('VALIDATION_FAILED', 'This endpoint speaks WebSocket only', { path: ['headers', 'upgrade'] });
        const ticket = await redeemTicket(context, request.query.ticket, new Date());
        const connectionId = newConnectionId();
        if (!(await realtime.limiter.acquire(ticket.siteId, connectionId))) {
          throw new AppError('RATE_LIMITED', `This site has its maximum of ${context.config.SVC_REALTIME_MAX_CONNECTIONS_PER_SITE} realtime connections`, {
            headers: { 'retry-after': '5' },
          });
        }
        // The slot is freed when the connection goes, however it goes (even a failed upgrade).
        request.raw.socket.once('close', () => {
          realtime.limiter.release(ticket.siteId, connectionId).catch(() => undefined);
        });
        // From here on the log is followed for this socket (an idle instance starts following now), and
        // its holder's revocations are watched before its credential is checked: a revocation committed
        // before the check is seen by it, one committed after reaches the watcher.
        await realtime.tailer.follow();
        const admission: Admission = { ticket, connectionId, socket: null, revoked: null };
        const { holder } = ticket;
        const unwatch = realtime.revocations.watch({
          siteId: ticket.siteId,
          holder,
          allowed: (access) => ticket.collections.every((collection) => access.can('read', collection)),
          revoke(reason) {
            admission.revoked = reason;
            if (admission.socket) closeRevoked(admission.socket, reason);
          },
        });
        request.raw.socket.once('close', unwatch);
        const refused = await realtime.revocations.check(ticket.siteId, holder);
        if (refused) {
          unwatch();
          if (refused === 'unauthenticated') throw new AppError('UNAUTHENTICATED', 'The credential this ticket was issued to is no longer valid', { path: ['query', 'ticket'] });
          throw errors.forbidden("The holder's role changed since this ticket was issued; ask for a new ticket");
        }
        admissions.set(request, admission);
      },
    },
    (socket, request) => {
      const admission = admissions.get(request)!;
      realtime.hub.attach(socket, admission.ticket, admission.connectionId);
      admission.socket = socket;
      if (admission.revoked) closeRevoked(socket, admission.revoked);
    },
  );
}
