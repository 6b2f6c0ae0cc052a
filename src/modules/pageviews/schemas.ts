// The shapes of GET /pageviews/stats: its query, the date range it resolves to, and its answer.
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { MAX_PATH_LENGTH } from './beaconInput.ts';
import { utcDay } from './visitorHash.ts';

/** Days a stats request covers when it names no `from`, and the most it may cover. */
export const DEFAULT_STATS_DAYS = 30;
export const MAX_STATS_DAYS = 366;
const DAY_MS = 86_400_000;

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => !Number.isNaN(Date.parse(value)) && utcDay(new Date(value)) === value, 'must be a calendar date');

export const statsQuery = z.object({
  from: isoDate.optional(),
  to: isoDate.optional(),
  path: z.string().min(1).max(MAX_PATH_LENGTH).startsWith('/', 'must start with /').optional(),
});

export const dailyPageviews = z.object({ day: z.string(), views: z.number().int(), uniques: z.number().int() });

export const statsResponse = z.object({
  data: z.array(dailyPageviews),
  meta: z.object({ from: z.string(), to: z.string(), path: z.string().nullable() }),
});

export interface StatsRange {
  from: string;
  to: string;
}

/** The days asked for: `to` defaults to today (UTC), `from` to 29 days before `to`; at most MAX_STATS_DAYS, from ≤ to. */
export function resolveStatsRange(query: { from?: string; to?: string }, now: Date): StatsRange {
  const to = query.to ?? utcDay(now);
  const from = query.from ?? utcDay(new Date(Date.parse(to) - (DEFAULT_STATS_DAYS - 1) * DAY_MS));
  if (from > to) throw new AppError('VALIDATION_FAILED', 'from must not be after to', { path: ['query', 'from'] });
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days > MAX_STATS_DAYS) {
    throw new AppError('VALIDATION_FAILED', `The range covers ${days} days; at most ${MAX_STATS_DAYS}`, {
      path: ['query', 'from'],
      extensions: { maxDays: MAX_STATS_DAYS },
    });
  }
  return { from, to };
}
