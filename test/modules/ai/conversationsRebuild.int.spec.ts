// The copilot's conversations read model gives the same rows when rebuilt from the log: conversations
// of two users, continued, refused, waiting for approval, and deleted. On a database of the file's
// own: a rebuild rewrites the whole tables.
import { describe, expect, it } from 'vitest';
import { sql, type SqlFragment } from '../../../infra/postgres/sql.ts';
import { aiConversationsProjection } from '../../../projections/aiConversationsProjection.ts';
import { createFreshDatabaseForFile } from '../../support/databases.ts';
import { expectRebuildToGiveSameRows } from '../../support/rebuild.ts';
import { startTestServiceForFile } from '../../support/testService.ts';
import { createItem, createSkillSite, memberWith } from './skillsSupport.ts';

const database = await createFreshDatabaseForFile();
const service = await startTestServiceForFile({ DATABASE_URL: database.url });

async function snapshot(siteId: string): Promise<Record<string, string[]>> {
  const rows = (query: SqlFragment) => database.owner.query(query).then((found) => found.map((row) => JSON.stringify(row)));
  return {
    ai_conversations: await rows(sql`SELECT * FROM ai_conversations WHERE site_id = ${siteId} ORDER BY id`),
    ai_conversation_messages: await rows(sql`SELECT * FROM ai_conversation_messages WHERE site_id = ${siteId} ORDER BY conversation_id, position, seq`),
  };
}

describe('AI conversations read model', () => {
  it('rebuilds to the same rows', async () => {
    const site = await createSkillSite(service, 'convrb');
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const article = await createItem(site, 'articles', { title: 'Alpine lakes' });
    const send = async (body: Record<string, unknown>, token = site.adminToken) => (await site.as(token, 'POST', '/ai/chat', body)).body;

    const first = (await send({ message: `show article ${article.id}` })).data.conversationId;
    await send({ message: 'hello', conversationId: first });
    await send({ message: `delete article ${article.id}`, conversationId: first });
    const refused = (await send({ message: 'create article titled Nope' }, reader.token)).errors[0].extensions.conversationId;
    await send({ message: 'list articles', conversationId: refused }, reader.token);
    const deleted = (await send({ message: 'summarize articles' })).data.conversationId;
    expect((await site.admin('DELETE', `/ai/conversations/${deleted}`)).status).toBe(204);

    const before = await snapshot(site.siteId);
    expect(before.ai_conversations).toHaveLength(2);
    expect(before.ai_conversation_messages).toHaveLength(10);
    expect(before.ai_conversation_messages!.map((row) => JSON.parse(row).status).filter(Boolean).sort()).toEqual(['answered', 'executed', 'executed', 'pending_approval', 'refused']);

    await expectRebuildToGiveSameRows({
      service,
      owner: database.owner,
      projections: [aiConversationsProjection],
      tablesWithRows: Object.keys(before),
      snapshot: () => snapshot(site.siteId),
    });
  });
});
