// One resource of every kind a path of the API names, created in one site through its own routes:
// content (collection, fields, relation, items, a version, a pin), identity (a user, a team, a role, a
// policy and its permission, an API key, a trusted issuer), files and presets, publishing, email,
// flows and their run, the change feed, insights, translation, reports, AI and agents, erasure, cloud
// sync, a git integration and an extension. Every name and text carries the site's marker, so an
// answer holding it shows the site's data; `pathValue` fills a route's path parameters from them.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import sharp from 'sharp';
import { expect } from 'vitest';
import { runSkill } from '../../src/modules/ai/skillRunner.ts';
import { communityKey, upload } from '../modules/extensions/support.ts';
import type { GitHostServer } from './gitHostServers.ts';
import type { Operation } from './openapiOperations.ts';
import type { TestResponse, TestService, TestSite } from './testService.ts';

export interface SiteResources {
  site: TestSite;
  /** A text no other site holds: in every name, title and description of the site's resources. */
  marker: string;
  /** The site's values by kind: ids, names and keys (what `pathValue` and body references use). */
  values: Record<string, string>;
  /** Secrets the site was handed once (an API key, a webhook secret): never to be shown again, anywhere. */
  secrets: string[];
}

/** The kinds of `values`, and the path parameters each fills, by the route's path. */
const PATH_KINDS: [RegExp, string, string][] = [
  [/^\/instance\/sites\/\{id\}/, 'id', 'siteId'],
  [/^\/(me\/)?sessions\/\{id\}/, 'id', 'sessionId'],
  [/^\/admin\/erasure\/\{id\}/, 'id', 'erasureId'],
  [/^\/users\/\{id\}/, 'id', 'userId'],
  [/^\/teams\/\{id\}/, 'id', 'teamId'],
  [/^\/api-keys\/\{id\}/, 'id', 'apiKeyId'],
  [/^\/admin\/auth\/issuers\/\{id\}/, 'id', 'issuerId'],
  [/^\/roles\/\{id\}/, 'id', 'roleId'],
  [/^\/policies\/\{id\}/, 'id', 'policyId'],
  [/^\/policies\/\{id\}\/permissions\/\{permissionId\}/, 'permissionId', 'permissionId'],
  [/^\/audit\/\{eventId\}/, 'eventId', 'auditEventId'],
  [/^\/collections\/\{name\}/, 'name', 'collection'],
  [/^\/fields\/\{collection\}\/\{field\}/, 'field', 'field'],
  [/^\/relations\/\{id\}/, 'id', 'relationId'],
  [/^\/(items|editorial)\/\{collection\}\/\{id\}/, 'id', 'itemId'],
  [/^\/items\/\{collection\}\/\{id\}\/versions\/\{key\}/, 'key', 'versionKey'],
  [/^\/items\/\{collection\}\/\{id\}\/pins\/\{field\}/, 'field', 'pinField'],
  [/^\/cdc\/subscriptions\/\{id\}/, 'id', 'subscriptionId'],
  [/^\/settings\/\{key\}/, 'key', 'settingKey'],
  [/^\/releases\/\{id\}/, 'id', 'releaseId'],
  [/^\/pages\/\{id\}/, 'id', 'pageId'],
  [/^\/deliver\/page\/\{path\}/, 'path', 'pageSlug'],
  [/^\/(files|assets)\/\{id\}/, 'id', 'fileId'],
  [/^\/transform-presets\/\{id\}/, 'id', 'transformPresetId'],
  [/^\/media\/\{key\}/, 'key', 'mediaKey'],
  [/^\/email\/layouts\/\{id\}/, 'id', 'emailLayoutId'],
  [/^\/email\/templates\/\{id\}/, 'id', 'emailTemplateId'],
  [/^\/email\/templates\/\{key\}/, 'key', 'emailTemplateKey'],
  [/^\/email\/suppressions\/\{email\}/, 'email', 'suppressedEmail'],
  [/^\/flows\/\{id\}/, 'id', 'flowId'],
  [/^\/flows\/\{id\}\/runs\/\{runId\}/, 'runId', 'flowRunId'],
  [/^\/presets\/\{id\}/, 'id', 'viewPresetId'],
  [/^\/dashboards\/\{id\}/, 'id', 'dashboardId'],
  [/^\/dashboards\/\{id\}\/panels\/\{panelId\}/, 'panelId', 'panelId'],
  [/^\/tm\/glossary\/\{id\}/, 'id', 'glossaryId'],
  [/^\/tm\/\{id\}/, 'id', 'tmEntryId'],
  [/^\/reports\/\{id\}/, 'id', 'reportId'],
  [/^\/(ai|agent)\/approvals\/\{id\}/, 'id', 'approvalId'],
  [/^\/ai\/conversations\/\{id\}/, 'id', 'conversationId'],
  [/^\/agent\/roles\/\{name\}/, 'name', 'agentRole'],
  [/^\/agent\/autonomy\/\{role\}/, 'role', 'agentRole'],
  [/^\/agent\/autonomy\/promotions\/\{id\}/, 'id', 'promotionId'],
  [/^\/agent\/intents\/\{id\}/, 'id', 'intentId'],
  [/^\/agent\/goals\/\{id\}/, 'id', 'goalId'],
  [/^\/agent\/staged\/\{id\}/, 'id', 'stagedId'],
  [/^\/agent\/incidents\/\{id\}/, 'id', 'incidentId'],
  [/^\/cloud-sync\/pipelines\/\{id\}/, 'id', 'pipelineId'],
  [/^\/integrations\/git\/\{id\}/, 'id', 'gitIntegrationId'],
  [/^\/integrations\/git\/webhook\/\{provider\}\/\{siteId\}\/\{integrationId\}/, 'integrationId', 'gitIntegrationId'],
  [/^\/integrations\/git\/webhook\/\{provider\}\/\{siteId\}/, 'siteId', 'siteId'],
  [/^\/extensions\/\{id\}/, 'id', 'extensionId'],
];

/** Path parameters that are not a site's resource: values any site may send. */
const PLAIN_PARAMETERS: Record<string, string> = { type: 'marketing', provider: 'github', version: '1' };

/** The site's value for a path parameter of the operation; undefined when the site has none of that kind. */
export function pathValue(resources: SiteResources, operation: Operation, parameter: string): string | undefined {
  let kind: string | undefined;
  for (const [pattern, name, candidate] of PATH_KINDS) if (name === parameter && pattern.test(operation.apiPath)) kind = candidate;
  if (kind === undefined && parameter === 'collection') kind = 'collection';
  if (kind !== undefined) return resources.values[kind];
  return PLAIN_PARAMETERS[parameter];
}

/** Body properties that name another resource, and the kind of value that fills them. */
export const BODY_REFERENCES: Record<string, string> = {
  roleId: 'roleId',
  parentId: 'roleId',
  defaultRoleId: 'roleId',
  userId: 'userId',
  reviewerId: 'userId',
  teamId: 'teamId',
  itemId: 'itemId',
  newTargetId: 'itemId',
  revisionId: 'revisionId',
  layoutId: 'emailLayoutId',
  intentId: 'intentId',
  conversationId: 'conversationId',
  freezeId: 'freezeId',
  relation: 'relationId',
  collection: 'collection',
  templateKey: 'emailTemplateKey',
};

type Call = (method: string, path: string, body?: unknown) => Promise<TestResponse>;

async function created(response: Promise<TestResponse>, what: string): Promise<any> {
  const answer = await response;
  expect([200, 201, 202], `${what}: ${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status);
  return answer.body.data;
}

/**
 * Reads until `done` holds: the site's background work (a flow run, a report) has finished before
 * its data is compared. Its read model is all there is to watch; it is read every 50 ms.
 */
async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not settle: ${JSON.stringify(value)}`);
    await delay(50);
  }
}

export interface SiteResourceOptions {
  /** The local git host the service is pointed at (SVC_GIT_GITHUB_API_URL), for a git integration. */
  gitHost: GitHostServer;
}

/**
 * Creates one resource of every kind in `site`, as its administrator, and answers their values. The
 * service must trust the extensions test key (SVC_EXTENSION_TRUSTED_KEYS) and use `options.gitHost`.
 */
export async function createSiteResources(service: TestService, site: TestSite, options: SiteResourceOptions): Promise<SiteResources> {
  const marker = `mark${randomBytes(6).toString('hex')}`;
  const call: Call = (method, path, body) => service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
  const values: Record<string, string> = { siteId: site.siteId, userAdminId: site.adminUserId };
  const secrets: string[] = [];
  const collection = `${marker}_posts`;
  const related = `${marker}_people`;
  values.collection = collection;
  values.field = 'title';

  // Content: two collections, a relation, items, a version and a pin.
  await created(call('POST', '/collections', { name: related, fields: [{ field: 'name', type: 'string' }] }), 'collection');
  await created(
    call('POST', '/collections', {
      name: collection,
      note: `${marker} collection`,
      fields: [
        { field: 'title', type: 'string' },
        { field: 'person', type: 'uuid' },
      ],
    }),
    'collection',
  );
  values.relationId = (await created(call('POST', '/relations', { kind: 'm2o', collection, field: 'person', relatedCollection: related }), 'relation')).id;
  const person = await created(call('POST', `/items/${related}`, { name: `${marker} person` }), 'item');
  values.relatedItemId = person.id;
  values.itemId = (await created(call('POST', `/items/${collection}`, { title: `${marker} first`, person: person.id }), 'item')).id;
  values.secondItemId = (await created(call('POST', `/items/${collection}`, { title: `${marker} second` }), 'item')).id;
  await created(call('PATCH', `/items/${collection}/${values.itemId}`, { title: `${marker} first, edited` }), 'item update');
  const revisions = await created(call('GET', `/items/${collection}/${values.itemId}/revisions`), 'revisions');
  values.revisionId = revisions[0].revisionId;
  values.versionKey = `${marker}-draft`;
  await created(call('POST', `/items/${collection}/${values.itemId}/versions`, { key: values.versionKey, name: `${marker} version` }), 'version');
  values.pinField = '*';
  await created(call('POST', `/items/${collection}/${values.itemId}/pins`, { field: '*', revisionId: values.revisionId }), 'pin');

  // Identity.
  const member = await created(call('POST', '/users', { email: `${marker}@example.test`, password: 'member password 123', firstName: marker }), 'user');
  values.userId = member.id;
  values.userEmail = `${marker}@example.test`;
  values.teamId = (await created(call('POST', '/teams', { name: `${marker} team`, members: [member.id] }), 'team')).id;
  values.roleId = (await created(call('POST', '/roles', { name: `${marker} role`, description: marker }), 'role')).id;
  values.policyId = (await created(call('POST', '/policies', { name: `${marker} policy`, description: marker }), 'policy')).id;
  values.permissionId = (await created(call('POST', `/policies/${values.policyId}/permissions`, { collection, action: 'read' }), 'permission')).id;
  await created(call('POST', `/policies/${values.policyId}/attach`, { roleId: values.roleId }), 'policy attach');
  const apiKey = await created(call('POST', '/api-keys', { name: `${marker} key` }), 'api key');
  values.apiKeyId = apiKey.id;
  secrets.push(apiKey.key);
  values.issuerId = (
    await created(
      call('POST', '/admin/auth/issuers', {
        issuer: `https://${marker}.example.test/realm`,
        jwksUri: `https://${marker}.example.test/realm/certs`,
        audience: marker,
        algorithms: ['RS256'],
      }),
      'issuer',
    )
  ).id;
  await created(call('POST', '/users/subscriber-access', { collection }), 'subscriber access');
  const sessions = await created(call('GET', '/me/sessions'), 'sessions');
  values.sessionId = sessions[0].id;
  await created(call('PUT', '/me/consents/marketing', { granted: true, source: marker, version: marker }), 'consent');
  values.settingKey = `${marker}_setting`;
  await created(call('PUT', `/settings/${values.settingKey}`, { value: `${marker} setting` }), 'setting');

  // Files and presets.
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: { r: 10, g: 20, b: 30 } } }).png().toBuffer();
  values.mediaKey = `${marker}.png`;
  const media = await fetch(`${service.url}/api/v1/media/${values.mediaKey}`, {
    method: 'POST',
    headers: { 'x-svc-site': site.siteId, authorization: `Bearer ${site.adminToken}`, 'content-type': 'image/png' },
    body: new Uint8Array(png),
  });
  const mediaBody = (await media.json()) as { data: { id: string } };
  expect(media.status, JSON.stringify(mediaBody)).toBe(201);
  values.fileId = mediaBody.data.id;
  values.transformPresetId = (await created(call('POST', '/transform-presets', { key: `${marker}-thumb`, name: `${marker} thumb`, dsl: { width: 2 } }), 'transform preset')).id;
  values.viewPresetId = (await created(call('POST', '/presets', { collection, layout: 'table', bookmark: `${marker} bookmark` }), 'view preset')).id;

  // Publishing.
  values.releaseId = (
    await created(call('POST', '/releases', { name: `${marker} release`, addItems: [{ collection, itemId: values.secondItemId, targetStatus: 'published' }] }), 'release')
  ).id;
  values.pageSlug = `${marker}-page`;
  values.pageId = (await created(call('POST', '/pages', { slug: values.pageSlug, title: `${marker} page` }), 'page')).id;

  // Email.
  values.emailLayoutId = (await created(call('POST', '/email/layouts', { name: `${marker} layout`, html: `<main>${marker} {{ content }}</main>` }), 'email layout')).id;
  values.emailTemplateKey = `${marker}-welcome`;
  values.emailTemplateId = (
    await created(call('POST', '/email/templates', { key: values.emailTemplateKey, subject: `${marker} subject`, html: `<p>${marker}</p>`, layoutId: values.emailLayoutId }), 'email template')
  ).id;
  values.suppressedEmail = `${marker}-suppressed@example.test`;
  await created(call('POST', '/email/suppressions', { email: values.suppressedEmail, reason: marker }), 'suppression');

  // Flows, with a finished run.
  const flow = await created(
    call('POST', '/flows', { name: `${marker} flow`, description: marker, trigger: 'manual', status: 'active', graph: { nodes: [{ id: 'say', operation: 'log', options: { message: marker } }], edges: [] } }),
    'flow',
  );
  values.flowId = flow.id;
  values.flowRunId = (await created(call('POST', `/flows/${flow.id}/run`, { marker }), 'flow run')).runId;
  await settled(
    () => call('GET', `/flows/${flow.id}/runs/${values.flowRunId}`),
    (run) => ['succeeded', 'failed'].includes(run.body.data?.status),
    'the flow run',
  );

  // The change feed, insights, translation.
  values.subscriptionId = (await created(call('POST', '/cdc/subscriptions', { name: `${marker} feed`, kind: 'pull' }), 'subscription')).id;
  values.dashboardId = (await created(call('POST', '/dashboards', { name: `${marker} dashboard`, note: marker }), 'dashboard')).id;
  values.panelId = (
    await created(
      call('POST', `/dashboards/${values.dashboardId}/panels`, { name: `${marker} panel`, type: 'table', position: { x: 0, y: 0, width: 6, height: 4 }, query: { collection, aggregate: 'count' } }),
      'panel',
    )
  ).id;
  values.tmEntryId = (await created(call('POST', '/tm', { sourceLang: 'en', targetLang: 'fr', sourceText: `${marker} source`, targetText: `${marker} cible` }), 'tm entry')).id;
  values.glossaryId = (await created(call('POST', '/tm/glossary', { sourceLang: 'en', targetLang: 'fr', term: `${marker}term`, translation: `${marker}terme` }), 'glossary term')).id;

  // A compliance report, generated.
  const day = 86_400_000;
  const report = await created(
    call('POST', '/reports/compliance', { from: new Date(Date.now() - day).toISOString(), to: new Date(Date.now() + day).toISOString(), format: 'json' }),
    'report',
  );
  values.reportId = report.id;
  await settled(
    () => call('GET', `/reports/${report.id}`),
    (answer) => ['completed', 'failed'].includes(answer.body.data?.status),
    'the report',
  );

  // AI: a conversation, and an agent's call that waits for approval.
  values.conversationId = (await created(call('POST', '/ai/chat', { message: `hello ${marker}` }), 'chat')).conversationId;
  const admin = await created(call('GET', `/users/${site.adminUserId}`), 'administrator');
  const outcome = await runSkill(service.context, {
    siteId: site.siteId,
    principal: { kind: 'user', userId: site.adminUserId, roleId: admin.roleId ?? null, admin: true, sessionId: null, via: 'session', realm: 'studio' },
    agent: { id: `conversation:${marker}`, role: null },
    call: { skill: 'items.delete', input: { collection, id: values.secondItemId } },
    requestId: randomUUID(),
  });
  expect(outcome.status, JSON.stringify(outcome)).toBe('pending_approval');
  values.approvalId = (outcome as { approvalId: string }).approvalId;

  // Agents: a role staging its work, a constitution, an intent, a goal and its staged action, an incident, a promotion.
  values.agentRole = `${marker}-writer`;
  await created(call('POST', '/agent/roles', { name: values.agentRole, description: marker, skills: ['items.*'], collections: [collection] }), 'agent role');
  await created(call('PUT', `/agent/autonomy/${values.agentRole}`, { level: 'stage' }), 'autonomy');
  await created(call('PUT', '/agent/constitution/draft', { text: `# ${marker}\nallow items.* on ${collection} for ${values.agentRole}` }), 'constitution draft');
  await created(call('POST', '/agent/constitution/compile'), 'constitution compile');
  await created(call('POST', '/agent/constitution/activate'), 'constitution activate');
  values.intentId = (await created(call('POST', '/agent/intents', { title: `${marker} intent`, description: marker, role: values.agentRole }), 'intent')).id;
  const goal = await created(
    call('POST', '/agent/goals', {
      title: `${marker} goal`,
      steps: [{ skill: 'items.create', input: { collection, items: { title: `${marker} staged` } } }],
      role: values.agentRole,
      intentId: values.intentId,
      execution: 'sync',
    }),
    'goal',
  );
  values.goalId = goal.id;
  values.stagedId = goal.stagedId;
  values.incidentId = (await created(call('POST', '/agent/incidents', { role: values.agentRole, severity: 'info', title: `${marker} incident`, detail: marker }), 'incident')).id;
  values.promotionId = (await created(call('POST', '/agent/autonomy/promotions', { role: values.agentRole, level: 'act', reason: marker }), 'promotion')).id;

  // Erasure, cloud sync, git, extensions.
  values.erasureId = (await created(call('POST', '/admin/erasure', { collection, filter: { title: { _eq: `${marker} nobody` } }, reason: marker }), 'erasure request')).id;
  values.pipelineId = (
    await created(
      call('POST', '/cloud-sync/pipelines', {
        name: `${marker} mirror`,
        target: 'realtime_database',
        projectId: marker,
        credentials: { databaseUrl: `https://${marker}.example.test/db`, secret: `${marker}-database-secret` },
        collections: [collection],
      }),
      'pipeline',
    )
  ).id;
  secrets.push(`${marker}-database-secret`);
  const repository = `${marker}/site`;
  const gitToken = `ghp_${marker}${'x'.repeat(20)}`;
  options.gitHost.github.addRepo(repository, { token: gitToken });
  const integration = await created(call('POST', '/integrations/git', { provider: 'github', repoFullName: repository, authMethod: 'pat', token: gitToken, displayName: marker }), 'git integration');
  values.gitIntegrationId = integration.id;
  secrets.push(gitToken, integration.webhookSecret);
  values.extensionId = (await upload(service, site, { name: `${marker}-ext`, description: marker, capabilities: ['log'] }, communityKey)).id;

  values.auditEventId = (await created(call('GET', '/audit?limit=1'), 'audit'))[0].eventId;
  return { site, marker, values, secrets: secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0) };
}
