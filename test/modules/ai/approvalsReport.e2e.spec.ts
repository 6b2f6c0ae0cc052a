// A compliance report names the person who approved an agent's write (`approvedBy`, from the audit
// log's agent provenance), in JSON and in CSV; entries no agent wrote have none. On a database of the
// file's own: sealing the log runs the checkpoint task over every site.
import { describe, expect, it } from 'vitest';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { completedReport, download, sealLog } from '../reports/support/reportHelpers.ts';
import { callSkill, createItem, createSkillSite, memberWith } from './skillsSupport.ts';

const fresh = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: fresh.url, SVC_CHECKPOINT_EVERY: '4' });

describe('compliance reports of agent writes', () => {
  it('fill approvedBy with the approving person', async () => {
    const site = await createSkillSite(service, 'apprrp');
    const requester = await memberWith(site, ['read', 'delete'].map((action) => ({ collection: 'articles', action, fields: ['*'] })));
    const from = new Date().toISOString();
    const article = await createItem(site, 'articles', { title: 'Report me' });
    const outcome = await callSkill(site, requester.principal, 'items.delete', { collection: 'articles', id: article.id });
    const approvalId = (outcome as { approvalId: string }).approvalId;
    const decided = await site.admin('POST', `/ai/approvals/${approvalId}/decide`, { decision: 'approved' });
    expect(decided.body.data.approval.status).toBe('executed');
    const to = new Date(Date.now() + 1).toISOString();
    await sealLog(service, fresh.owner, [site.siteId]);

    const json = await completedReport(site, { from, to, format: 'json', actions: ['item.created', 'item.deleted'] });
    const entries = JSON.parse((await download(site, json.id)).bytes.toString('utf8')).entries as { action: string; actor: Record<string, unknown> }[];
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ['item.created', { kind: 'user', id: site.adminUserId, impersonatorId: null, approvedBy: null }],
      ['item.deleted', { kind: 'agent', id: expect.stringMatching(/^conversation:/), impersonatorId: null, approvedBy: site.adminUserId }],
    ]);

    const csv = await completedReport(site, { from, to, format: 'csv', actions: ['item.deleted'] });
    const lines = (await download(site, csv.id)).bytes.toString('utf8').split('\r\n');
    expect(lines[0]).toContain(',approvedBy,');
    const approvedByColumn = lines[0]!.split(',').indexOf('approvedBy');
    expect(lines[1]!.split(',')[approvedByColumn]).toBe(`"${site.adminUserId}"`);
  });
});
