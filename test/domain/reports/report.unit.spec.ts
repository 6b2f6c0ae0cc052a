// The compliance report decider: requested → running → completed | failed; progress only while running
// and forward; a job that runs again on a finished report records nothing.
import { describe, it } from 'vitest';
import { reportDecider } from '../../../domain/reports/report.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(reportDecider);
const reportId = '018f0000-0000-7000-8000-000000000001';
const params = { from: '2030-01-01T00:00:00.000Z', to: '2030-02-01T00:00:00.000Z', collections: ['articles'], actions: [], format: 'json' as const };
const requested = { type: 'report.requested', data: { reportId, params } };
const started = { type: 'report.started', data: { reportId, attempt: 1, total: 10 } };
const outcome = {
  entries: 10, bytes: 100, sha256: 'ab', firstPosition: 1, lastPosition: 9, valid: true, problems: 0, signature: 's', keyId: 'k', generatedAt: '2030-03-01T00:00:00.000Z',
};

describe('compliance report decider', () => {
  it('requests a report once', () => {
    spec.given([]).when({ type: 'requestReport', reportId, params }).then([requested as never]);
    spec.given([requested]).when({ type: 'requestReport', reportId, params }).thenThrows('CONFLICT', 409);
  });

  it('starts a queued report, and starts a running one over with the next attempt', () => {
    spec.given([requested]).when({ type: 'startReport', total: 10 }).then([started as never]);
    spec.given([requested, started]).when({ type: 'startReport', total: 12 }).then([{ type: 'report.started', data: { reportId, attempt: 2, total: 12 } }]);
  });

  it('records progress while running, forward only', () => {
    spec.given([requested]).when({ type: 'recordProgress', entries: 5 }).thenNothing();
    spec.given([requested, started]).when({ type: 'recordProgress', entries: 5 }).then([{ type: 'report.progressed', data: { reportId, entries: 5, total: 10 } }]);
    spec.given([requested, started, { type: 'report.progressed', data: { reportId, entries: 5, total: 10 } }]).when({ type: 'recordProgress', entries: 5 }).thenNothing();
  });

  it('completes or fails a running report once; a finished one records nothing more', () => {
    spec.given([requested, started]).when({ type: 'completeReport', outcome }).then([{ type: 'report.completed', data: { reportId, ...outcome } }]);
    spec.given([requested]).when({ type: 'completeReport', outcome }).thenNothing();
    const completed = { type: 'report.completed', data: { reportId, ...outcome } };
    spec.given([requested, started, completed]).when({ type: 'startReport', total: 1 }).thenNothing();
    spec.given([requested, started, completed]).when({ type: 'failReport', error: 'late' }).thenNothing();
    spec.given([requested, started]).when({ type: 'failReport', error: 'x'.repeat(2_000) }).then([{ type: 'report.failed', data: { reportId, error: 'x'.repeat(1_000) } }]);
    spec.given([requested, started, { type: 'report.failed', data: { reportId, error: 'boom' } }]).when({ type: 'startReport', total: 1 }).thenNothing();
  });
});
