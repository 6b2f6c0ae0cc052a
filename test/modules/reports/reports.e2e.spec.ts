// Compliance reports over real HTTP and PostgreSQL (docs/compliance-reports.md): every audit entry of a
// period in log order (filtered by collections and actions), as JSON or CSV, signed with the manifest's
// evidence and verified offline by the docs' verifier; a truncated log or an uncovered period reported
// invalid; another site's entries never in a report. The file has its own database: the checkpoint
// task reads the whole log.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import {
  auditEntries,
  completedReport,
  createReportSite,
  download,
  sealLog,
  signatureOf,
  verifyOffline,
  writeItem,
  type Json,
  type ReportSite,
} from './support/reportHelpers.ts';

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url, SVC_CHECKPOINT_EVERY: '4' });
const owner = fresh.owner;
const FORMULA_REQUEST_ID = '-2-3.cmd.calc';

/** Two sites writing items of two collections in the same period, the log sealed by checkpoints after it. */
async function periodWithWrites(): Promise<{ site: ReportSite; other: ReportSite; from: string; to: string }> {
  const site = await createReportSite(service);
  const other = await createReportSite(service, 'rpt-other');
  const from = new Date().toISOString();
  await writeItem(site, 'articles', 'First');
  await writeItem(other, 'articles', 'Elsewhere');
  await writeItem(site, 'notes', 'A note', FORMULA_REQUEST_ID);
  await writeItem(other, 'notes', 'Elsewhere too');
  await writeItem(site, 'articles', 'Second');
  const to = new Date(Date.now() + 1).toISOString();
  await sealLog(service, owner, [site.siteId, other.siteId]);
  return { site, other, from, to };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('compliance reports', () => {
  it('reports every change of the period in log order as JSON, signed, with its evidence, and verifiable offline', async () => {
    const { site, other, from, to } = await periodWithWrites();
    const expected = await auditEntries(owner, site.siteId, from, to);
    expect(expected).toHaveLength(6);
    const report = await completedReport(site, { from, to, format: 'json' });
    expect(report).toMatchObject({
      status: 'completed',
      params: { from, to, collections: [], actions: [], format: 'json' },
      requestedBy: { kind: 'user', id: site.adminUserId },
      progress: { entries: 6, total: 6 },
      entries: 6,
      valid: true,
      problems: 0,
      firstPosition: expected[0]!.position,
      lastPosition: expected.at(-1)!.position,
    });

    const file = await download(site, report.id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^application\/json/);
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="compliance-report-${report.id}.json"`);
    expect(file.bytes.length).toBe(report.bytes);
    expect(sha256(file.bytes)).toBe(report.sha256);
    const document = JSON.parse(file.bytes.toString('utf8'));
    expect(document.report).toMatchObject({ id: report.id, siteId: site.siteId, from, to, format: 'json' });
    expect(document.entries.map((entry: Json) => entry.eventId)).toEqual(expected.map((row) => row.event_id));
    expect(document.entries[0]).toEqual({
      position: expected[0]!.position,
      eventId: expected[0]!.event_id,
      occurredAt: expect.any(String),
      action: 'item.created',
      actor: { kind: 'user', id: site.adminUserId, impersonatorId: null, approvedBy: null },
      target: expect.stringMatching(/^item\/articles\//),
      collection: 'articles',
      requestId: expect.any(String),
      details: { collection: 'articles', itemId: expect.any(String), changedFields: expect.arrayContaining(['title']) },
    });
    const otherEvents = await owner.query<{ event_id: string }>(sql`SELECT event_id FROM events WHERE site_id = ${other.siteId}`);
    const reported = new Set(document.entries.map((entry: Json) => entry.eventId));
    expect(otherEvents.filter((row) => reported.has(row.event_id))).toEqual([]);
    expect(document.evidence.verification).toMatchObject({ valid: true, problems: [], period: { entries: 6, events: 6 }, checkpoints: { covered: true } });
    expect(document.evidence.checkpoints.length).toBeGreaterThan(0);

    const signed = await signatureOf(site, report.id);
    expect(signed.data).toMatchObject({ keyId: report.keyId, algorithm: 'Ed25519', signature: report.signature });
    expect(signed.data.manifest).toMatchObject({
      type: 'svc.compliance-report', version: 1, reportId: report.id, siteId: site.siteId, from, to, format: 'json', entries: 6,
      sha256: report.sha256, bytes: report.bytes, generatedBy: { kind: 'user', id: site.adminUserId },
    });
    expect(signed.data.manifest.checkpoints).toEqual(document.evidence.checkpoints);
    for (const checkpoint of signed.data.manifest.checkpoints) expect(JSON.parse(checkpoint.payload).siteId).toBe(site.siteId);
    const pem = signed.data.publicKey.pem as string;

    const verified = await verifyOffline(file.bytes, signed, pem);
    expect(verified).toEqual({ ok: true, result: { signed: true, whole: true, sha256: report.sha256, logVerified: true, problems: [] } });
    const tamperedBytes = Buffer.from(file.bytes);
    const middle = Math.floor(tamperedBytes.length / 2);
    tamperedBytes.writeUInt8(tamperedBytes.readUInt8(middle) ^ 0x01, middle);
    expect(await verifyOffline(tamperedBytes, signed, pem)).toMatchObject({ ok: false, result: { signed: true, whole: false } });
    const tamperedManifest = { data: { ...signed.data, manifest: { ...signed.data.manifest, entries: 5 } } };
    expect(await verifyOffline(file.bytes, tamperedManifest, pem)).toMatchObject({ ok: false, result: { signed: false, whole: true } });
  });

  it('keeps only the collections and actions asked for, and writes CSV quoted and guarded against formulas', async () => {
    const { site, from, to } = await periodWithWrites();
    const notes = await completedReport(site, { from, to, format: 'csv', collections: ['notes'] });
    expect(notes).toMatchObject({ entries: 2, progress: { entries: 2, total: 2 }, valid: true });
    const file = await download(site, notes.id);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(sha256(file.bytes)).toBe(notes.sha256);
    const lines = file.bytes.toString('utf8').split('\r\n');
    expect(lines[0]).toBe('position,eventId,occurredAt,action,actorKind,actorId,impersonatorId,approvedBy,target,collection,requestId,details');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    for (const line of lines.slice(1, 3)) {
      // A request id a client chose that starts with "-" is written with a leading single quote.
      expect(line).toContain(`,"'${FORMULA_REQUEST_ID}",`);
      // A cell with quotes and commas (the details' JSON) is quoted, its quotes doubled.
      expect(line).toMatch(/,"notes","'-2-3\.cmd\.calc","\{""[^\r\n]*""collection"": ""notes""[^\r\n]*\}"$/);
      expect(line).toMatch(new RegExp(`^\\d+,"[0-9a-f-]{36}","[^"]+","item\\.(created|updated)","user","${site.adminUserId}",,,"item/notes/`));
    }
    const verified = await verifyOffline(file.bytes, await signatureOf(site, notes.id), (await signatureOf(site, notes.id)).data.publicKey.pem);
    expect(verified.ok).toBe(true);

    const updates = await completedReport(site, { from, to, format: 'json', collections: ['articles', 'notes'], actions: ['item.updated'] });
    expect(updates).toMatchObject({ entries: 3, params: { collections: ['articles', 'notes'], actions: ['item.updated'] } });
    const document = JSON.parse((await download(site, updates.id)).bytes.toString('utf8'));
    expect(document.entries.map((entry: Json) => [entry.action, entry.collection])).toEqual([
      ['item.updated', 'articles'],
      ['item.updated', 'notes'],
      ['item.updated', 'articles'],
    ]);
    const none = await completedReport(site, { from, to, format: 'json', actions: ['data_erased'] });
    expect(none).toMatchObject({ entries: 0, valid: true });
    expect(none).not.toHaveProperty('firstPosition');
  });

  it('reports a period whose log was truncated as not valid, naming the problems', async () => {
    const { site, from, to } = await periodWithWrites();
    // The newest events of the site's last item, deleted behind the service's back by the database owner.
    const [newest] = await owner.query<{ stream_id: string }>(sql`
      SELECT stream_id FROM events WHERE site_id = ${site.siteId} AND type LIKE 'item.%' ORDER BY position DESC LIMIT 1`);
    await owner.query(sql`DELETE FROM events WHERE stream_id = ${newest!.stream_id} AND stream_position = 2`);
    const report = await completedReport(site, { from, to, format: 'json' });
    expect(report).toMatchObject({ valid: false, entries: 6 });
    const { manifest } = (await signatureOf(site, report.id)).data;
    const kinds = manifest.verification.problems.map((problem: Json) => problem.kind);
    expect(kinds).toContain('truncated_tail');
    expect(kinds).toContain('audit_log_mismatch');
    expect(manifest.verification.problems).toContainEqual(expect.objectContaining({ kind: 'truncated_tail', streamId: newest!.stream_id }));
    expect(manifest.verification.period).toEqual({ entries: 6, events: 5 });
  });

  it('reports a period that no signed checkpoint covers yet as not valid', async () => {
    const { site, from } = await periodWithWrites();
    await writeItem(site, 'articles', 'After the last checkpoint');
    await service.context.daemon.drain();
    const to = new Date(Date.now() + 1).toISOString();
    const report = await completedReport(site, { from, to, format: 'csv' });
    expect(report).toMatchObject({ valid: false, entries: 8 });
    const { manifest } = (await signatureOf(site, report.id)).data;
    expect(manifest.verification.checkpoints.covered).toBe(false);
    expect(manifest.verification.problems).toContainEqual(expect.objectContaining({ kind: 'period_not_covered' }));
  });
});
