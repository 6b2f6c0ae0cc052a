// The AI approvals read model, and the agent provenance of the audit log, give the same rows when
// rebuilt from the log: approvals pending, reviewed by an agent, executed, rejected, stale and failed.
// On a database of the file's own: a rebuild rewrites the whole tables.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { aiApprovalsProjection } from '../../../projections/aiApprovalsProjection.ts';
import { auditProjection } from '../../../projections/auditProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { callSkill, createItem, createSkillSite, memberWith, type SkillSite } from './skillsSupport.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

const RIGHTS = ['read', 'create', 'update', 'delete'].map((action) => ({ collection: 'articles', action, fields: ['*'] }));

async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    ai_approvals: await rows(sql`SELECT * FROM ai_approvals WHERE site_id = ${siteId} ORDER BY id`),
    audit_log: await rows(sql`SELECT * FROM audit_log WHERE site_id = ${siteId} AND on_behalf_of IS NOT NULL ORDER BY position`),
  };
}

async function pendingDelete(site: SkillSite, principal: Parameters<typeof callSkill>[1], title: string): Promise<{ approvalId: string; itemId: string }> {
  const article = await createItem(site, 'articles', { title });
  const outcome = await callSkill(site, principal, 'items.delete', { collection: 'articles', id: article.id });
  return { approvalId: (outcome as { approvalId: string }).approvalId, itemId: article.id };
}

describe('AI approvals read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createSkillSite(service, 'apprrb');
    const requester = await memberWith(site, RIGHTS);
    const reviewer = await memberWith(site, [{ collection: null, action: 'review:items' }]);
    const decide = (approvalId: string, body: unknown, token = site.adminToken) => site.as(token, 'POST', `/ai/approvals/${approvalId}/decide`, body);

    await pendingDelete(site, requester.principal, 'Pending');
    const reviewed = await pendingDelete(site, requester.principal, 'Reviewed');
    expect((await site.as(reviewer.token, 'POST', `/agent/approvals/${reviewed.approvalId}/agent-decide`, { decision: 'approved', reason: 'Fine' })).status).toBe(200);
    const executed = await pendingDelete(site, requester.principal, 'Executed');
    expect((await decide(executed.approvalId, { decision: 'approved', reason: 'Go' })).status).toBe(200);
    const rejected = await pendingDelete(site, requester.principal, 'Rejected');
    expect((await decide(rejected.approvalId, { decision: 'rejected' })).status).toBe(200);
    const stale = await pendingDelete(site, requester.principal, 'Stale');
    expect((await site.admin('PATCH', `/items/articles/${stale.itemId}`, { title: 'Edited' })).status).toBe(200);
    expect((await decide(stale.approvalId, { decision: 'approved' })).status).toBe(409);
    const failed = await pendingDelete(site, requester.principal, 'Failed');
    expect((await site.admin('POST', `/policies/${requester.policyId}/detach`, { roleId: requester.roleId })).status).toBe(200);
    expect((await decide(failed.approvalId, { decision: 'approved' })).body.data.approval.status).toBe('failed');
    // A safe write of an agent: provenance without an approval.
    await callSkill(site, site.adminPrincipal, 'items.create', { collection: 'articles', items: { title: 'By an agent' } });

    await service.context.daemon.drain();
    const before = await snapshot(site.siteId);
    expect(before.ai_approvals).toHaveLength(6);
    const statuses = before.ai_approvals!.map((row) => JSON.parse(row).status).sort();
    expect(statuses).toEqual(['executed', 'failed', 'pending_approval', 'pending_approval', 'rejected', 'stale']);
    expect(before.audit_log!.some((row) => JSON.parse(row).approved_by === site.adminUserId)).toBe(true);

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [aiApprovalsProjection, auditProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
