// CPU time of processes from /proc (Linux): a service child's, and the backends of a PostgreSQL database.
import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU milliseconds (user + system) of a process so far, from /proc (null where it cannot be read). */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** CPU milliseconds the backends of `database` have used so far (null when PostgreSQL's /proc cannot be read). */
export async function backendsCpuMs(owner: pg.Client, database: string): Promise<Map<number, number> | null> {
  const { rows } = await owner.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  const usage = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = cpuMs(pid);
    if (ms === null) return null;
    usage.set(pid, ms);
  }
  return usage;
}
