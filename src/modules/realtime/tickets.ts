// Realtime tickets: one minute, single use, stored only as a hash. The ticket text starts with its
// site ("<site>.<random>") because a browser's WebSocket cannot send the X-Svc-Site header; using it
// is one UPDATE ... WHERE used_at IS NULL, so two connections can never share it.
// Tickets are credentials, not business history: they live in their own table, not in the log.
// A ticket also keeps who it was issued to (`holder`: the principal, its session or API key, role and
// admin flag), so that the socket it opens ends with that credential (./revocations.ts); a ticket
// issued before tickets kept it (within the minute before an upgrade) has none and is refused.
import { AppError } from '../../../domain/shared/appError.ts';
import { SITE_ID_PATTERN } from '../../../domain/sites/site.ts';
import { randomToken, tokenHash } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';

export const TICKET_LIFETIME_MS = 60_000;

export type TicketKind = 'studio' | 'audience';

export interface RealtimeTicket {
  siteId: string;
  kind: TicketKind;
  userId: string | null;
  /** Collections whose item signals the holder may subscribe to. */
  collections: string[];
  /** The principal the ticket was issued to. */
  holder: UserPrincipal;
}

/** The site's live collections that `mayRead` allows (the content schema's read model). */
export async function readableCollections(tx: Queryable, siteId: string, mayRead: (collection: string) => boolean): Promise<string[]> {
  const rows = await tx.query<{ name: string }>(sql`SELECT name FROM collections WHERE site_id = ${siteId} AND deleted_at IS NULL ORDER BY name`);
  return rows.map((row) => row.name).filter(mayRead);
}

/** Issues a ticket embedding the site's collections that `mayRead` allows, as they stand now. */
export async function issueTicket(
  context: Pick<AppContext, 'database'>,
  siteId: string,
  principal: UserPrincipal,
  kind: TicketKind,
  now: Date,
  mayRead: (collection: string) => boolean,
): Promise<{ ticket: string; expiresAt: Date; collections: string[] }> {
  const ticket = `${siteId}.${randomToken(32)}`;
  const expiresAt = new Date(now.getTime() + TICKET_LIFETIME_MS);
  const collections = await context.database.withSite(siteId, async (tx) => {
    const readable = await readableCollections(tx, siteId, mayRead);
    await tx.query(sql`
      INSERT INTO realtime_tickets (site_id, ticket_hash, kind, user_id, collections, holder, created_at, expires_at)
      VALUES (${siteId}, ${tokenHash(ticket)}, ${kind}, ${principal.userId}, ${JSON.stringify(readable)}::jsonb, ${JSON.stringify(principal)}::jsonb, ${now}, ${expiresAt})`);
    return readable;
  });
  return { ticket, expiresAt, collections };
}

function invalidTicket(): AppError {
  return new AppError('UNAUTHENTICATED', 'The realtime ticket is unknown, expired or already used', { path: ['query', 'ticket'] });
}

/** Uses a ticket up; throws 401 when it is unknown, expired or used. */
export async function redeemTicket(context: Pick<AppContext, 'database'>, ticket: string, now: Date): Promise<RealtimeTicket> {
  const siteId = ticket.slice(0, Math.max(0, ticket.indexOf('.')));
  if (!SITE_ID_PATTERN.test(siteId)) throw invalidTicket();
  const [row] = await context.database.withSite(siteId, (tx) =>
    tx.query<{ kind: TicketKind; user_id: string | null; collections: string[]; holder: UserPrincipal | null }>(sql`
      UPDATE realtime_tickets SET used_at = ${now}
       WHERE site_id = ${siteId} AND ticket_hash = ${tokenHash(ticket)} AND used_at IS NULL AND expires_at > ${now}
      RETURNING kind, user_id, collections, holder`),
  );
  if (!row?.holder) throw invalidTicket();
  return { siteId, kind: row.kind, userId: row.user_id, collections: row.collections, holder: row.holder };
}
