// Compliance reports: signed reports of the audit log over a period, built as a job (docs/compliance-reports.md).
import type { OperationCatalogue } from '../operationEntry.ts';

const notCompleted = 'A report that is not completed yet (queued, running) or failed is 409 CONFLICT.';

export const reportOperations: OperationCatalogue = {
  'POST /reports/compliance': {
    summary: 'Request a compliance report',
    description:
      '`from` < `to` (ISO times with an offset), at most 366 days apart; `collections` and `actions` (at most 100 each) narrow the entries; ' +
      '`format` is `json` or `csv`. Answers 202 with the report `queued`: it runs as a job, streamed to storage, then signed. A bad body is 400 ' +
      'VALIDATION_FAILED with its path, and nothing is written.',
  },
  'GET /reports': { summary: 'The site’s compliance reports', description: 'Newest first, paged.' },
  'GET /reports/{id}': {
    summary: 'One compliance report: its status and progress',
    description: 'Once completed: `entries`, `bytes`, `sha256` of the file, `valid` and `problems` of its verification, and `signature`.',
  },
  'GET /reports/{id}/download': {
    summary: 'Download a completed report’s file',
    description: `Streams the stored file (JSON or CSV) as an attachment. ${notCompleted}`,
    errors: ['CONFLICT'],
    response: {
      status: 200,
      contentType: 'application/octet-stream',
      raw: { type: 'string', contentMediaType: 'application/octet-stream' },
      description: 'The report’s file as stored, with the Content-Type of its format: `application/json` (`{ report, entries, evidence }`) or `text/csv` (a header row).',
    },
  },
  'GET /reports/{id}/signature': {
    summary: 'The signed manifest of a completed report',
    description:
      '`{ manifest, payload, signature, keyId, algorithm, publicKey }`: the Ed25519 signature (base64url) of `payload`, the canonical JSON of `manifest`, ' +
      `which holds the file's SHA-256 and the signed log checkpoints covering the period with their verification. ${notCompleted}`,
    errors: ['CONFLICT'],
  },
};
