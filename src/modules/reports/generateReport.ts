// The worker's run of one report (docs/compliance-reports.md): started (a report found running lost its
// job with a stopped instance and starts over), its entries streamed to a temporary file with their
// SHA-256 while the evidence that the log is whole is read beside them (then appended), the file put
// in the site's storage, the manifest signed and stored beside it, then completed. Any failure marks the report failed with its
// reason; only a failure to record that is thrown, for the queue to retry the job.
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportDecider, type ReportCommand } from '../../../domain/reports/report.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { forSite, type ObjectStorage } from '../../../infra/storage/objectStorage.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findReport, reportObjectKeys } from './queries.ts';
import { periodBounds, periodEvidence } from './reportEvidence.ts';
import { signReportManifest } from './reportSigning.ts';
import { countEntries, REPORT_PAGE_SIZE, HashingFileWriter, reportFile, writeEntries } from './reportWriter.ts';

const WORKER_METADATA: EventMetadata = { actor: { kind: 'system', id: 'reports' } };
/** Progress is recorded at most this often, or after this many entries, whichever comes first; never per entry. */
const PROGRESS_EVERY_MS = 2_000;
const PROGRESS_EVERY_ENTRIES = 100_000;
const CONTENT_TYPES = { json: 'application/json', csv: 'text/csv; charset=utf-8' } as const;

export type ReportJobContext = Pick<AppContext, 'database' | 'projections' | 'signingKey'> & Partial<Pick<AppContext, 'logger'>>;

export interface ReportJobOptions {
  pageSize?: number;
  progressEveryMs?: number;
  progressEveryEntries?: number;
  /** Where the temporary file is written (default: the system's temporary folder). */
  temporaryFolder?: string;
}

export const reportStream = (siteId: string, reportId: string) => streamId(siteId, 'report', reportId);

function record(context: ReportJobContext, siteId: string, reportId: string, command: ReportCommand) {
  return handleCommand(context, { siteId, streamId: reportStream(siteId, reportId), decider: reportDecider, command, metadata: WORKER_METADATA, lock: true });
}

/** What a failed report says: an AppError's message, else the error's code (ENOSPC, …), never a path or a statement. */
function reasonOf(error: unknown): string {
  if (error instanceof AppError) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  return `The report could not be built (${typeof code === 'string' ? code : 'internal error'})`;
}

/** Runs the report's job. Answers false when there was nothing to do (unknown, or finished already). */
export async function generateReport(context: ReportJobContext, storage: ObjectStorage, siteId: string, reportId: string, options: ReportJobOptions = {}): Promise<boolean> {
  const report = await context.database.withSiteReads(siteId, (tx) => findReport(tx, siteId, reportId));
  if (!report || report.status === 'completed' || report.status === 'failed') return false;
  const { params } = report;
  const bounds = await context.database.withSiteReads(siteId, (tx) => periodBounds(tx, siteId, params));
  const total = await countEntries(context.database, siteId, params, bounds);
  const started = await record(context, siteId, reportId, { type: 'startReport', total });
  if (started.events.length === 0) return false;

  const path = join(options.temporaryFolder ?? tmpdir(), `svc-report-${reportId}-${randomBytes(6).toString('hex')}.${params.format}`);
  const manifestPath = `${path}.manifest.json`;
  const siteStorage = forSite(storage, siteId);
  const keys = reportObjectKeys(reportId, params.format);
  let writer: HashingFileWriter | null = null;
  try {
    writer = await HashingFileWriter.create(path);
    const file = reportFile(params.format, { id: reportId, siteId, ...params, generatedBy: report.requestedBy });
    await writer.write(file.head);
    let recorded = { at: Date.now(), entries: 0 };
    const progress = async (entries: number) => {
      const due = Date.now() - recorded.at >= (options.progressEveryMs ?? PROGRESS_EVERY_MS) || entries - recorded.entries >= (options.progressEveryEntries ?? PROGRESS_EVERY_ENTRIES);
      if (!due) return;
      await record(context, siteId, reportId, { type: 'recordProgress', entries });
      recorded = { at: Date.now(), entries };
    };
    // The evidence (the verifiers walk the site's whole log in the database) is read while the entries are written.
    const evidenceRead = context.database.withSite(siteId, (tx) => periodEvidence(tx, siteId, params, bounds, context.signingKey));
    evidenceRead.catch(() => undefined);
    const written = await writeEntries(context.database, siteId, params, bounds, { file, writer, pageSize: options.pageSize ?? REPORT_PAGE_SIZE, progress });
    const evidence = await evidenceRead;
    await writer.write(file.tail(evidence));
    const sha256 = await writer.close();
    await siteStorage.putFile(keys.file, path, CONTENT_TYPES[params.format]);

    const generatedAt = new Date().toISOString();
    const signed = signReportManifest(
      {
        reportId,
        siteId,
        ...params,
        entries: written.entries,
        sha256,
        bytes: writer.bytes,
        ...(written.firstPosition === null ? {} : { firstPosition: written.firstPosition, lastPosition: written.lastPosition! }),
        checkpoints: evidence.checkpoints,
        verification: evidence.verification,
        generatedAt,
        generatedBy: report.requestedBy,
      },
      context.signingKey,
    );
    await writeFile(manifestPath, JSON.stringify(signed), { flag: 'wx' });
    await siteStorage.putFile(keys.manifest, manifestPath, 'application/json');
    await record(context, siteId, reportId, {
      type: 'completeReport',
      outcome: {
        entries: written.entries,
        bytes: writer.bytes,
        sha256,
        firstPosition: written.firstPosition,
        lastPosition: written.lastPosition,
        valid: evidence.verification.valid,
        problems: evidence.verification.problems.length,
        signature: signed.signature,
        keyId: signed.keyId,
        generatedAt,
      },
    });
  } catch (error) {
    writer?.destroy();
    context.logger?.error({ err: error, siteId, reportId }, 'compliance report failed');
    await record(context, siteId, reportId, { type: 'failReport', error: reasonOf(error) });
  } finally {
    await rm(path, { force: true });
    await rm(manifestPath, { force: true });
  }
  return true;
}
