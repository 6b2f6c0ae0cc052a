// Failed sign-ins in the log, bounded: per account (site and normalized email), client IP, reason and
// window of SVC_SIGNIN_FAILURE_EVENTS_WINDOW_SECONDS, the first SVC_SIGNIN_FAILURE_EVENTS failures are
// one event each, as before; the rest are counted in sign_in_failure_windows and, once the window has
// closed, written as one event carrying their count (`failures`) and the window. The total of a
// stream's failures is then the sum over its sign_in_failed events of `failures` (absent: 1).
// Closed windows are summarized at the next failure on the site and by the scheduler task below.
import type { AuthEvent, FailedSignInCount } from '../../../domain/identity/events.ts';
import { userDecider } from '../../../domain/identity/user.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { recordDecider } from '../../../domain/shared/recordDecider.ts';
import { tokenHash } from '../../../infra/crypto/secrets.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';

/** The site's day streams of sign-ins with an unknown email. */
const signInFailuresDecider = recordDecider<AuthEvent>();

export type FailureReason = 'wrong_password' | 'inactive' | 'unknown_email';

export interface FailedSignIn {
  email: string;
  /** The user the email belongs to, null when none does. */
  userId: string | null;
  reason: FailureReason;
  ip: string | null;
}

/** How many windows one summary run turns into events per site (the rest wait for the next run). */
const SUMMARY_BATCH = 200;

function windowOf(context: AppContext, now: Date): { from: Date; to: Date } {
  const length = context.config.SVC_SIGNIN_FAILURE_EVENTS_WINDOW_SECONDS * 1000;
  const from = Math.floor(now.getTime() / length) * length;
  return { from: new Date(from), to: new Date(from + length) };
}

/** Appends one failed sign-in event: on the user's stream, or on the site's day stream for an unknown email. */
async function appendFailure(
  tx: Queryable,
  context: AppContext,
  siteId: string,
  failure: { emailHash: string; userId: string | null; reason: FailureReason; at: Date },
  metadata: EventMetadata,
  counted?: FailedSignInCount,
): Promise<void> {
  if (failure.userId && failure.reason !== 'unknown_email') {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', failure.userId),
      decider: userDecider,
      command: { type: 'recordFailedSignIn', reason: failure.reason, counted },
      metadata,
    });
    return;
  }
  const day = failure.at.toISOString().slice(0, 10);
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: streamId(siteId, 'sign-in-failures', day),
    decider: signInFailuresDecider,
    command: { type: 'record', events: [{ type: 'auth.sign_in_failed', data: { emailHash: failure.emailHash, reason: 'unknown_email', ...counted } }] },
    metadata,
    load: 'none',
    lock: true,
  });
}

/** Records a failed sign-in: an event while its window has room, else one more in the window's count. */
export async function recordFailedSignIn(context: AppContext, siteId: string, attempt: FailedSignIn, metadata: EventMetadata, now = new Date()): Promise<void> {
  const emailHash = tokenHash(attempt.email);
  const window = windowOf(context, now);
  await inSiteTransaction(context, siteId, async (tx) => {
    const [row] = await tx.query<{ failures: number }>(sql`
      INSERT INTO sign_in_failure_windows (site_id, email_hash, ip_hash, reason, window_start, window_end, user_id, failures)
      VALUES (${siteId}, ${emailHash}, ${tokenHash(attempt.ip ?? '')}, ${attempt.reason}, ${window.from}, ${window.to}, ${attempt.userId}, 1)
      ON CONFLICT (site_id, email_hash, ip_hash, reason, window_start)
      DO UPDATE SET failures = sign_in_failure_windows.failures + 1, user_id = EXCLUDED.user_id
      RETURNING failures`);
    if (row!.failures <= context.config.SVC_SIGNIN_FAILURE_EVENTS) {
      await appendFailure(tx, context, siteId, { emailHash, userId: attempt.userId, reason: attempt.reason, at: now }, metadata);
    }
  });
  await summarizeClosedWindows(context, siteId, now);
}

interface WindowRow {
  email_hash: string;
  ip_hash: string;
  reason: FailureReason;
  window_start: Date;
  window_end: Date;
  user_id: string | null;
  failures: number;
}

/**
 * Turns the site's closed windows into events: one per window whose failures went past the events
 * it got, carrying the rest's count; then forgets the windows. Several instances skip each other's rows.
 */
export async function summarizeClosedWindows(context: AppContext, siteId: string, now = new Date()): Promise<number> {
  const perWindow = context.config.SVC_SIGNIN_FAILURE_EVENTS;
  return inSiteTransaction(context, siteId, async (tx) => {
    const closed = await tx.query<WindowRow>(sql`
      SELECT email_hash, ip_hash, reason, window_start, window_end, user_id, failures FROM sign_in_failure_windows
       WHERE site_id = ${siteId} AND window_end <= ${now}
       ORDER BY window_end LIMIT ${SUMMARY_BATCH} FOR UPDATE SKIP LOCKED`);
    if (closed.length === 0) return 0;
    const metadata: EventMetadata = { actor: { kind: 'system', id: null } } as EventMetadata;
    for (const window of closed.filter((row) => row.failures > perWindow)) {
      const counted = { failures: window.failures - perWindow, window: { from: window.window_start.toISOString(), to: window.window_end.toISOString() } };
      const failure = { emailHash: window.email_hash, userId: window.user_id, reason: window.reason, at: window.window_start };
      await appendFailure(tx, context, siteId, failure, metadata, counted).catch(async (error: unknown) => {
        // The user was deleted since: the count still belongs in the log, under the email's hash.
        if (!(error instanceof AppError) || error.code !== 'NOT_FOUND') throw error;
        await appendFailure(tx, context, siteId, { ...failure, userId: null, reason: 'unknown_email' }, metadata, counted);
      });
    }
    await tx.query(sql`
      DELETE FROM sign_in_failure_windows w
       USING jsonb_to_recordset(${JSON.stringify(closed.map((row) => ({ email_hash: row.email_hash, ip_hash: row.ip_hash, reason: row.reason, window_start: row.window_start })))}::jsonb)
             AS r(email_hash text, ip_hash text, reason text, window_start timestamptz)
       WHERE w.site_id = ${siteId} AND w.email_hash = r.email_hash AND w.ip_hash = r.ip_hash AND w.reason = r.reason AND w.window_start = r.window_start`);
    return closed.length;
  });
}

/** The scheduler task: summarizes closed windows on every site that has one (the auth area's manifest, src/modules/index.ts). */
export async function summarizeSignInFailures(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  const sites = await context.database.query<{ site_id: string }>(sql`SELECT site_id FROM svc_sign_in_failure_sites(${now}) AS site_id ORDER BY 1`);
  for (const { site_id: siteId } of sites) {
    if (signal?.aborted) return;
    while ((await summarizeClosedWindows(context, siteId, now)) === SUMMARY_BATCH && !signal?.aborted);
  }
}
