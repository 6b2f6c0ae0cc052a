// The MCP endpoint (docs/mcp.md) through the SDK's own client: initialize, the skills as tools with
// their hints, a read tool executed, a dangerous tool answered with a pending approval that ran
// nothing, refusals as tool errors with nothing changed, the agent's provenance on what a tool
// writes, and the HTTP edges: no token, another site's token, the flag off, other methods, bad input.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { sql } from '../../../infra/postgres/sql.ts';
import { createTestSite, startTestService, startTestServiceForFile, type TestService } from '../../support/testService.ts';
import { createItem, createSkillSite, memberWith, streamEvents, type SkillSite } from './skillsSupport.ts';

const service = await startTestServiceForFile({ SVC_MCP_ENABLED: 'true' });
const ACCEPT = 'application/json, text/event-stream';

async function connect(target: TestService, siteId: string, token: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${target.url}/api/v1/mcp`), {
    requestInit: { headers: { 'X-Svc-Site': siteId, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** A raw POST of one JSON-RPC message, as a client without the SDK sends it. */
function post(target: TestService, body: unknown, options: { site?: string; token?: string; headers?: Record<string, string>; rawBody?: string } = {}) {
  return target.request('POST', '/mcp', {
    ...(options.site ? { site: options.site } : {}),
    ...(options.token ? { token: options.token } : {}),
    ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : { body }),
    headers: { accept: ACCEPT, ...options.headers },
  });
}

const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

async function articleStatus(site: SkillSite, id: string): Promise<number> {
  return (await site.admin('GET', `/items/articles/${id}`)).status;
}

describe('MCP: initialize and tools/list through the SDK client', () => {
  it('initializes statelessly and lists the caller’s skills as tools with their schema and hints', async () => {
    const site = await createSkillSite(service, 'mcp');
    const client = await connect(service, site.siteId, site.adminToken);
    expect(client.getServerVersion()).toMatchObject({ name: 'svc' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} });

    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['items.list', 'items.read', 'items.search', 'items.summarize', 'items.create', 'items.update', 'items.delete', 'releases.publish']) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get('items.read')).toMatchObject({
      inputSchema: { type: 'object', properties: { collection: { type: 'string' }, id: {} } },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    expect(byName.get('items.delete')).toMatchObject({ annotations: { readOnlyHint: false, destructiveHint: true } });
    expect(byName.get('items.delete')!.description).toContain('pending approval');
    expect(byName.get('items.create')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    // Commands that are not skills are no tools.
    expect(byName.has('users.delete')).toBe(false);
    await client.close();

    // A member sees only what they may call: no release publishing without its capability.
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const theirs = await connect(service, site.siteId, reader.token);
    const names = (await theirs.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('items.read');
    expect(names).not.toContain('releases.publish');
    await theirs.close();
  });

  it('takes an API key as the bearer token', async () => {
    const site = await createSkillSite(service, 'mcp');
    const created = await site.admin('POST', '/api-keys', { name: 'mcp', userId: site.adminUserId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const item = await createItem(site, 'articles', { title: 'Keyed' });
    const client = await connect(service, site.siteId, created.body.data.key);
    const result = await call(client, 'items.read', { collection: 'articles', id: item.id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'executed', data: { item: { title: 'Keyed' } } });
    await client.close();
  });
});

describe('MCP: tools/call runs the skill as an agent for the caller', () => {
  it('executes a read tool: the outcome as structured content and as its JSON text', async () => {
    const site = await createSkillSite(service, 'mcp');
    const item = await createItem(site, 'articles', { title: 'Alpine lakes', category: 'travel' });
    const client = await connect(service, site.siteId, site.adminToken);
    const result = await call(client, 'items.read', { collection: 'articles', id: item.id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'executed', skill: 'items.read', data: { item: { id: item.id, title: 'Alpine lakes' }, version: 1 } });
    const [text] = result.content;
    expect(text?.type).toBe('text');
    expect(JSON.parse((text as { text: string }).text)).toEqual(result.structuredContent);
    await client.close();
  });

  it('answers a dangerous tool with a pending approval and deletes nothing; the approval then runs it once, as the MCP agent', async () => {
    const site = await createSkillSite(service, 'mcp');
    const item = await createItem(site, 'articles', { title: 'Keep me' });
    const client = await connect(service, site.siteId, site.adminToken);
    const result = await call(client, 'items.delete', { collection: 'articles', id: item.id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      status: 'pending_approval',
      code: 'HITL_REQUIRED',
      skill: 'items.delete',
      approvalId: expect.any(String),
      message: expect.stringContaining('approval'),
    });
    await client.close();
    const approvalId = (result.structuredContent as { approvalId: string }).approvalId;
    expect(await articleStatus(site, item.id)).toBe(200);

    const [approval] = await service.context.database.withSiteReads(site.siteId, (tx) =>
      tx.query<{ status: string; skill: string; agent: { id: string } }>(sql`SELECT status, skill, agent FROM ai_approvals WHERE site_id = ${site.siteId} AND id = ${approvalId}`),
    );
    expect(approval).toMatchObject({ status: 'pending_approval', skill: 'items.delete', agent: { id: expect.stringMatching(/^mcp:/) } });

    const decided = await site.admin('POST', `/ai/approvals/${approvalId}/decide`, { decision: 'approved' });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(await articleStatus(site, item.id)).toBe(404);
    const events = await streamEvents(site, `${site.siteId}/item/articles/${item.id}`);
    const deletion = events.at(-1)!;
    expect(deletion.metadata).toMatchObject({ actor: { kind: 'agent', id: approval!.agent.id }, agent: { onBehalfOf: site.adminUserId, approvedBy: site.adminUserId, approvalId } });
  });

  it('records what a write tool does as the agent acting for the caller', async () => {
    const site = await createSkillSite(service, 'mcp');
    const client = await connect(service, site.siteId, site.adminToken);
    const result = await call(client, 'items.create', { collection: 'articles', items: { title: 'Written by a tool' } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'executed', skill: 'items.create', data: [{ snapshot: { title: 'Written by a tool' } }] });
    await client.close();
    const itemId = (result.structuredContent as { data: { snapshot: { id: string } }[] }).data[0]!.snapshot.id;
    expect(await articleStatus(site, itemId)).toBe(200);
    const [created] = await streamEvents(site, `${site.siteId}/item/articles/${itemId}`);
    expect(created!.metadata).toMatchObject({ actor: { kind: 'agent', id: expect.stringMatching(/^mcp:/) }, agent: { onBehalfOf: site.adminUserId, approvedBy: null } });
  });

  it('refuses as a tool error, with the envelope’s code and path, and changes nothing', async () => {
    const site = await createSkillSite(service, 'mcp');
    const item = await createItem(site, 'articles', { title: 'Unchanged' });
    const reader = await memberWith(site, [{ collection: 'articles', action: 'read', fields: ['*'] }]);
    const client = await connect(service, site.siteId, reader.token);

    // May read, not update: the intersection of the agent's and the principal's rights.
    const denied = await call(client, 'items.update', { collection: 'articles', id: item.id, changes: { title: 'Changed' } });
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toMatchObject({ errors: [{ code: 'SKILL_DENIED' }] });
    expect((denied.content[0] as { text: string }).text).toMatch(/^SKILL_DENIED: /);
    expect((await site.admin('GET', `/items/articles/${item.id}`)).body.data.title).toBe('Unchanged');

    const invalid = await call(client, 'items.read', { collection: 'articles' });
    expect(invalid).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'VALIDATION_FAILED', path: ['input', 'id'] }] } });

    const unknown = await call(client, 'users.delete', { id: randomUUID() });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'NOT_FOUND' }] } });
    await client.close();
  });

  it('acts under the agent role X-Svc-Agent-Role names, refused when the role does not exist', async () => {
    const site = await createSkillSite(service, 'mcp');
    const item = await createItem(site, 'articles', { title: 'Role-bound' });
    const client = await connect(service, site.siteId, site.adminToken, { 'X-Svc-Agent-Role': 'no-such-role' });
    const denied = await call(client, 'items.read', { collection: 'articles', id: item.id });
    expect(denied).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'SKILL_DENIED', extensions: { role: 'no-such-role' } }] } });
    await client.close();

    const bad = await post(service, toolsList, { site: site.siteId, token: site.adminToken, headers: { 'x-svc-agent-role': 'Not A Role' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['headers', 'x-svc-agent-role'] });
  });

  it('answers a staged write as a result that ran nothing, and a frozen agent role as AGENT_FROZEN', async () => {
    const site = await createSkillSite(service, 'mcp');
    const item = await createItem(site, 'articles', { title: 'Before' });
    const role = await site.admin('POST', '/agent/roles', { name: 'mcp-writer', skills: ['items.*'], collections: ['articles'] });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const client = await connect(service, site.siteId, site.adminToken, { 'X-Svc-Agent-Role': 'mcp-writer' });

    // A role's level is `read` until set: it may read, not write.
    expect((await call(client, 'items.read', { collection: 'articles', id: item.id })).structuredContent).toMatchObject({ status: 'executed' });
    const readOnly = await call(client, 'items.update', { collection: 'articles', id: item.id, changes: { title: 'After' } });
    expect(readOnly).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'SKILL_DENIED' }] } });

    expect((await site.admin('PUT', '/agent/autonomy/mcp-writer', { level: 'stage' })).status).toBe(200);
    const staged = await call(client, 'items.update', { collection: 'articles', id: item.id, changes: { title: 'After' } });
    expect(staged.isError).toBeFalsy();
    expect(staged.structuredContent).toEqual({ status: 'staged', skill: 'items.update', stagedId: expect.any(String), runAfter: expect.any(String), message: expect.any(String) });
    expect((await site.admin('GET', `/items/articles/${item.id}`)).body.data.title).toBe('Before');

    const frozen = await site.admin('POST', '/agent/kill-switch', { scope: 'role', target: 'mcp-writer', reason: 'MCP test' });
    expect(frozen.status, JSON.stringify(frozen.body)).toBe(201);
    const refused = await call(client, 'items.read', { collection: 'articles', id: item.id });
    expect(refused).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'AGENT_FROZEN', extensions: { scope: 'role', target: 'mcp-writer' } }] } });
    await client.close();
  });

  it('keeps another site’s items out of reach: its ids are not found', async () => {
    const site = await createSkillSite(service, 'mcp');
    const other = await createSkillSite(service, 'mcp');
    const theirs = await createItem(other, 'articles', { title: 'Not yours' });
    const client = await connect(service, site.siteId, site.adminToken);
    expect(await call(client, 'items.read', { collection: 'articles', id: theirs.id })).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'RECORD_NOT_FOUND' }] } });
    const deleting = await call(client, 'items.delete', { collection: 'articles', id: theirs.id });
    // Not even an approval is asked for: the item is none of this site's.
    expect(deleting).toMatchObject({ isError: true, structuredContent: { errors: [{ code: 'RECORD_NOT_FOUND', path: ['input', 'id'] }] } });
    await client.close();
    expect(await articleStatus(other, theirs.id)).toBe(200);
  });
});

describe('MCP: the HTTP edges', () => {
  it('gives a call without a valid token no result: 401, and the SDK client cannot connect', async () => {
    const site = await createTestSite(service, 'mcp');
    for (const token of [undefined, 'not-a-token']) {
      const refused = await post(service, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'items.list', arguments: { collection: 'articles' } } }, { site: site.siteId, ...(token ? { token } : {}) });
      expect(refused.status).toBe(401);
      expect(refused.body.errors[0].code).toBe('UNAUTHENTICATED');
      expect(refused.body).not.toHaveProperty('result');
    }
    await expect(connect(service, site.siteId, null)).rejects.toThrow();
  });

  it('refuses a token of another site', async () => {
    const site = await createTestSite(service, 'mcp');
    const other = await createTestSite(service, 'mcp');
    const refused = await post(service, toolsList, { site: site.siteId, token: other.adminToken });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].code).toBe('UNAUTHENTICATED');
    expect(refused.body).not.toHaveProperty('result');
    await expect(connect(service, site.siteId, other.adminToken)).rejects.toThrow();
  });

  it('is stateless: GET and DELETE are 405, and no session id is handed out', async () => {
    const site = await createTestSite(service, 'mcp');
    for (const method of ['GET', 'DELETE']) {
      const answer = await service.request(method, '/mcp', { site: site.siteId, token: site.adminToken, headers: { accept: ACCEPT } });
      expect(answer.status).toBe(405);
      expect(answer.body.errors[0].code).toBe('METHOD_NOT_ALLOWED');
    }
    const listed = await post(service, toolsList, { site: site.siteId, token: site.adminToken, headers: { 'mcp-protocol-version': '2025-06-18' } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    expect(listed.headers.get('x-request-id')).toBeTruthy();
    expect(listed.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } });
  });

  it('answers bad input with the error envelope at its path', async () => {
    const site = await createTestSite(service, 'mcp');
    const as = { site: site.siteId, token: site.adminToken };
    const missing = await post(service, { id: 1, method: 'tools/list' }, as);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'jsonrpc'] });
    const batch = await post(service, [toolsList], as);
    expect(batch.status).toBe(400);
    expect(batch.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body'] });
    const notJson = await post(service, null, { ...as, rawBody: '{"jsonrpc":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body'] });
    const unacceptable = await post(service, toolsList, { ...as, headers: { accept: 'application/json' } });
    expect(unacceptable.status).toBe(406);
    expect(unacceptable.body.errors[0]).toMatchObject({ code: 'NOT_ACCEPTABLE', path: ['headers', 'accept'] });
    const tooLarge = await post(service, { ...toolsList, params: { padding: 'x'.repeat(1024 * 1024) } }, as);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.errors[0].code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 404 with the flag off, whatever the credentials, and serves nothing', async () => {
    const off = await startTestService();
    try {
      const site = await createTestSite(off, 'mcp');
      for (const token of [site.adminToken, undefined]) {
        const answer = await post(off, toolsList, { site: site.siteId, ...(token ? { token } : {}) });
        expect(answer.status).toBe(404);
        expect(answer.body.errors[0].code).toBe('NOT_FOUND');
        expect(answer.body).not.toHaveProperty('result');
      }
      await expect(connect(off, site.siteId, site.adminToken)).rejects.toThrow();
    } finally {
      await off.close();
    }
  });
});
