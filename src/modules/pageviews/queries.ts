// Reads of pageview_daily: one row per day of the range, with zeros for days nobody visited.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { WHOLE_SITE } from './pageviewCounts.ts';
import type { StatsRange } from './schemas.ts';

export interface DailyPageviews {
  day: string;
  views: number;
  uniques: number;
}

const DAY_MS = 86_400_000;

/** Views and uniques per day of `range`, of one path or (path null) of the whole site. */
export async function dailyStats(tx: Queryable, siteId: string, range: StatsRange, path: string | null): Promise<DailyPageviews[]> {
  // `day = ANY(every day of the range)`: one primary-key lookup (site, day, path) per day, however
  // many paths the site has (a range on day would walk every path of every day).
  const rows = await tx.query<DailyPageviews>(sql`
    SELECT to_char(day, 'YYYY-MM-DD') AS day, views, uniques
      FROM pageview_daily
     WHERE site_id = ${siteId} AND path = ${path ?? WHOLE_SITE}
       AND day = ANY(ARRAY(SELECT generate_series(${range.from}::date, ${range.to}::date, interval '1 day')::date))`);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const days: DailyPageviews[] = [];
  for (let at = Date.parse(range.from); at <= Date.parse(range.to); at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    days.push(byDay.get(day) ?? { day, views: 0, uniques: 0 });
  }
  return days;
}
