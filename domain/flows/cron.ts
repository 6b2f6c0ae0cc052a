// Schedule flows' cron (docs/flows.md "Schedules"): five fields, UTC, parsed by croner (never by hand).
import { Cron } from 'croner';
import { AppError } from '../shared/appError.ts';

const CRON_PATH = ['body', 'triggerOptions', 'cron'];

/** Throws 400 CRON_INVALID for anything but five fields croner accepts. */
export function assertValidCron(cron: string): void {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) throw new AppError('CRON_INVALID', 'A cron has five fields (minute hour day-of-month month day-of-week), in UTC', { path: CRON_PATH });
  try {
    new Cron(cron, { timezone: 'UTC', paused: true }).stop();
  } catch (error) {
    throw new AppError('CRON_INVALID', `Invalid cron: ${error instanceof Error ? error.message : String(error)}`, { path: CRON_PATH });
  }
}

/** The first time of `cron` strictly after `after`, in UTC; null when there is none. */
export function nextCronTime(cron: string, after: Date): Date | null {
  const job = new Cron(cron, { timezone: 'UTC', paused: true });
  try {
    return job.nextRun(after);
  } finally {
    job.stop();
  }
}
