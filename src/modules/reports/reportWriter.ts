// Streaming a compliance report's file (docs/compliance-reports.md): the audit entries of the period,
// read in keyset pages by log position (the audit_log primary key) and written page by page to a file
// through a SHA-256 of its bytes. The next page is read while the current one is written; no more than
// two pages are ever held, whatever the size of the report.
import { createHash } from 'node:crypto';
import type { WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { once } from 'node:events';
import type { ReportParams } from '../../../domain/reports/events.ts';
import type { Database } from '../../../infra/postgres/database.ts';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import type { PeriodBounds } from './reportEvidence.ts';

/** Audit entries read per statement. */
export const REPORT_PAGE_SIZE = 5_000;

/** An entry as a page reads it: its position, and either its JSON (built by PostgreSQL) or its columns (CSV). */
export interface EntryRow {
  position: number;
  line?: string;
  event_id?: string;
  action?: string;
  actor_kind?: string;
  actor_id?: string | null;
  impersonator_id?: string | null;
  /** The person who approved an agent's write (audit_log.approved_by, docs/ai-skills.md). */
  approved_by?: string | null;
  target?: string;
  request_id?: string | null;
  /** ISO 8601 in UTC with milliseconds, as toISOString writes it. */
  occurred_at?: string;
  collection?: string | null;
  /** The entry's details as jsonb's own text: written as it is, never parsed. */
  details?: string;
}

/** How a format reads its entries (the select list) and writes its file: the JSON format carries the evidence too. */
export interface ReportFile {
  columns: SqlFragment;
  head: string;
  entry(row: EntryRow, first: boolean): string;
  tail(evidence: unknown): string;
}

const occurredAt = sql`to_char(a.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A JSON entry, built by PostgreSQL (no timestamp or jsonb parsed on the way). `approvedBy` is the
 * approving human of an agent's write (the event's `metadata.agent.approvedBy`, kept by the audit
 * projection in audit_log.approved_by), else null.
 */
const JSON_COLUMNS = sql`a.position, json_build_object(
  'position', a.position, 'eventId', a.event_id, 'occurredAt', ${occurredAt}, 'action', a.action,
  'actor', json_build_object('kind', a.actor_kind, 'id', a.actor_id, 'impersonatorId', a.impersonator_id, 'approvedBy', a.approved_by),
  'target', a.target, 'collection', a.details->>'collection', 'requestId', a.request_id, 'details', a.details)::text AS line`;

const CSV_SELECTED = sql`a.position, a.event_id, a.action, a.actor_kind, a.actor_id, a.impersonator_id, a.approved_by, a.target, a.request_id,
  ${occurredAt} AS occurred_at, a.details->>'collection' AS collection, a.details::text AS details`;

/** A CSV cell: text always quoted (quotes doubled); text a spreadsheet would run as a formula (= + - @, tab, CR) gets a leading single quote. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${guarded.replaceAll('"', '""')}"`;
}

export const CSV_COLUMNS = [
  'position', 'eventId', 'occurredAt', 'action', 'actorKind', 'actorId', 'impersonatorId', 'approvedBy', 'target', 'collection', 'requestId', 'details',
] as const;

function csvEntry(row: EntryRow): string {
  const cells = [
    row.position, row.event_id, row.occurred_at, row.action, row.actor_kind, row.actor_id, row.impersonator_id, row.approved_by, row.target,
    row.collection, row.request_id, row.details,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export function reportFile(format: ReportParams['format'], header: Record<string, unknown>): ReportFile {
  if (format === 'csv') return { columns: CSV_SELECTED, head: `${CSV_COLUMNS.join(',')}\r\n`, entry: csvEntry, tail: () => '' };
  return {
    columns: JSON_COLUMNS,
    head: `{"report":${JSON.stringify(header)},"entries":[`,
    entry: (row, first) => `${first ? '' : ','}\n${row.line!}`,
    tail: (evidence) => `\n],"evidence":${JSON.stringify(evidence)}}\n`,
  };
}

/** The conditions of the report's entries beside the site and the position range. */
function filters(params: ReportParams): SqlFragment {
  const collections = params.collections.length > 0 ? sql` AND a.details->>'collection' = ANY(${params.collections}::text[])` : sql``;
  const actions = params.actions.length > 0 ? sql` AND a.action = ANY(${params.actions}::text[])` : sql``;
  return sql`a.occurred_at >= ${params.from}::timestamptz AND a.occurred_at < ${params.to}::timestamptz${collections}${actions}`;
}

/** How many entries the report will hold (its progress's total). */
export async function countEntries(database: Database, siteId: string, params: ReportParams, bounds: PeriodBounds): Promise<number> {
  if (bounds.firstPosition === null) return 0;
  if (params.collections.length === 0 && params.actions.length === 0) return bounds.entries;
  const [row] = await database.withSiteReads(siteId, (tx) =>
    tx.query<{ total: number }>(sql`
      SELECT count(*)::int AS total FROM audit_log a
       WHERE a.site_id = ${siteId} AND a.position >= ${bounds.firstPosition} AND a.position <= ${bounds.lastPosition} AND ${filters(params)}`),
  );
  return row?.total ?? 0;
}

function readPage(database: Database, siteId: string, params: ReportParams, file: ReportFile, after: number, last: number, pageSize: number): Promise<EntryRow[]> {
  return database.withSiteReads(siteId, (tx) =>
    tx.query<EntryRow>(sql`
      SELECT ${file.columns}
        FROM audit_log a
       WHERE a.site_id = ${siteId} AND a.position > ${after} AND a.position <= ${last} AND ${filters(params)}
       ORDER BY a.position LIMIT ${pageSize}`),
  );
}

/** A file written through a SHA-256 of its bytes, waiting for the disk when its buffer is full. */
export class HashingFileWriter {
  private readonly hash = createHash('sha256');
  private failure: Error | null = null;
  bytes = 0;

  private constructor(private readonly stream: WriteStream) {
    stream.on('error', (error) => {
      this.failure = error;
    });
  }

  /** Creates the file (it must not exist): a folder that is missing or not writable fails here. */
  static async create(path: string): Promise<HashingFileWriter> {
    const handle = await open(path, 'wx');
    return new HashingFileWriter(handle.createWriteStream());
  }

  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    const chunk = Buffer.from(text, 'utf8');
    this.hash.update(chunk);
    this.bytes += chunk.length;
    // `once` rejects when the stream fails while it waits.
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  /** Closes the file; answers the SHA-256 (hex) of every byte written. */
  async close(): Promise<string> {
    const closed = once(this.stream, 'close');
    this.stream.end();
    await closed;
    if (this.failure) throw this.failure;
    return this.hash.digest('hex');
  }

  /** Closes the file after a failure (its bytes are thrown away). */
  destroy(): void {
    this.stream.destroy();
  }
}

export interface WrittenEntries {
  entries: number;
  firstPosition: number | null;
  lastPosition: number | null;
}

/** Writes the entries of the period (after the head), calling `progress` with the count after each page. */
export async function writeEntries(
  database: Database,
  siteId: string,
  params: ReportParams,
  bounds: PeriodBounds,
  output: { file: ReportFile; writer: HashingFileWriter; pageSize: number; progress: (entries: number) => Promise<void> },
): Promise<WrittenEntries> {
  const written: WrittenEntries = { entries: 0, firstPosition: null, lastPosition: null };
  if (bounds.firstPosition === null || bounds.lastPosition === null) return written;
  const last = bounds.lastPosition;
  const read = (after: number) => {
    const rows = readPage(database, siteId, params, output.file, after, last, output.pageSize);
    // A page read ahead is awaited on the next turn; a write that fails first leaves it unawaited.
    rows.catch(() => undefined);
    return rows;
  };
  let page = read(bounds.firstPosition - 1);
  for (;;) {
    const rows = await page;
    if (rows.length === 0) break;
    const after = rows.at(-1)!.position;
    const full = rows.length === output.pageSize;
    if (full) page = read(after);
    let text = '';
    for (const row of rows) {
      text += output.file.entry(row, written.entries === 0);
      written.entries += 1;
    }
    written.firstPosition ??= rows[0]!.position;
    written.lastPosition = after;
    await output.writer.write(text);
    await output.progress(written.entries);
    if (!full) break;
  }
  return written;
}
