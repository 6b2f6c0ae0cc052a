// GET /ai/approvals reads a page from an index (migration 0560), whoever asks: a site administrator
// (ai_approvals_by_status) or anyone else (ai_approvals_by_requester), newest first without a sort;
// and its total from an index. The plans are read with sequential scans discouraged, on the shared test database.
import { describe, expect, it } from 'vitest';
import type { SqlFragment } from '../../../infra/postgres/sql.ts';
import { approvalListStatements } from '../../../src/modules/ai/approvalQueries.ts';
import { planNodes } from '../../support/queryPlans.ts';
import { startTestServiceForFile } from '../../support/testService.ts';

const service = await startTestServiceForFile();
const SITE = 'approvals-plan';

const planOf = (statement: SqlFragment) => planNodes(service, SITE, statement);

describe('the approvals list', () => {
  it.each([
    { who: 'a site administrator', requesterId: null, index: 'ai_approvals_by_status' },
    { who: 'anyone else', requesterId: 'user-1', index: 'ai_approvals_by_requester' },
  ])('of $who reads its page from $index and its total from an index', async ({ requesterId, index }) => {
    const statements = approvalListStatements(SITE, { status: 'pending_approval', requesterId, limit: 25, page: 2 });
    const page = await planOf(statements.page);
    expect(page.some((node) => node['Index Name'] === index)).toBe(true);
    expect(page.filter((node) => node['Node Type'] === 'Seq Scan' || node['Node Type'] === 'Sort')).toEqual([]);
    // The total reads an index of the site's approvals (on an empty table the planner may pick either).
    const total = await planOf(statements.total);
    expect(total.some((node) => node['Index Name']?.startsWith('ai_approvals_'))).toBe(true);
    expect(total.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
  });
});
