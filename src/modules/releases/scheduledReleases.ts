// The scheduler's release publishing (task `releases` of src/boot/scheduler.ts): each tick publishes
// the scheduled releases whose publishAt has come, as the instance administrator, one transaction
// each (publishRelease). A due release outside its maintenance window waits for the next one. Safe
// to run twice: publishRelease re-checks under the release's stream lock that the release is still
// scheduled and due, so another instance's run, or a run after a crash, writes nothing more.
import { isInsideMaintenanceWindow, nextMaintenanceWindowStart } from '../../../domain/releases/maintenanceWindow.ts';
import type { MaintenanceWindow } from '../../../domain/releases/release.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { accessFor } from '../../access/access.ts';
import type { AppContext } from '../../runtime/context.ts';
import { publishRelease } from './publishRelease.ts';

/** Due releases read at a time; the next page starts after the last one read. */
const PAGE_SIZE = 100;

const SCHEDULER_METADATA: EventMetadata = { actor: { kind: 'system', id: 'scheduler' } };

interface DueRelease {
  site_id: string;
  id: string;
  /** publish_at as PostgreSQL prints it: exact to the microsecond, so the next page starts right after it. */
  publish_at_exact: string;
  maintenance_window: MaintenanceWindow | null;
}

/** The scheduler task: every due release, oldest first; one that fails is logged and the others go on. */
export async function publishDueReleases(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  let after: DueRelease | undefined;
  for (;;) {
    const page = await context.database.query<DueRelease>(sql`
      SELECT site_id, id, publish_at::text AS publish_at_exact, maintenance_window
        FROM svc_due_releases(${now}, ${PAGE_SIZE}, ${after?.publish_at_exact ?? null}::timestamptz, ${after?.site_id ?? null}::text, ${after?.id ?? null}::uuid)`);
    for (const release of page) {
      if (signal?.aborted) return;
      await publishDueRelease(context, release, now);
    }
    // The next page starts after the last release read: those left waiting are not read again this tick.
    if (page.length < PAGE_SIZE) return;
    after = page.at(-1);
  }
}

async function publishDueRelease(context: AppContext, release: DueRelease, now: Date): Promise<void> {
  const log = { siteId: release.site_id, releaseId: release.id };
  if (!isInsideMaintenanceWindow(release.maintenance_window, now)) {
    context.logger.debug({ ...log, waitsUntil: nextMaintenanceWindowStart(release.maintenance_window, now) }, 'due release waits for its maintenance window');
    return;
  }
  try {
    const access = await accessFor(context, release.site_id, { kind: 'instance' });
    const result = await publishRelease(context, { siteId: release.site_id, releaseId: release.id, access, metadata: SCHEDULER_METADATA, dueAt: now });
    // null: another run published it first, or it was rescheduled or unscheduled since it was read.
    if (result) context.logger.info({ ...log, status: result.status }, 'scheduled release published');
  } catch (error) {
    // It stays scheduled: the next tick tries again.
    const code = error instanceof AppError ? error.code : undefined;
    context.logger.error({ ...log, err: error, code }, 'scheduled release could not be published');
  }
}
