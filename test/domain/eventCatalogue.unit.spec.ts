// Every event type of the catalogue has a schema that takes what its decider writes and refuses what
// it never writes. The samples are typed by the catalogue: a new event type without a sample here
// does not compile.
import { describe, expect, it } from 'vitest';
import { FEED_EVENT_TYPES } from '../../domain/changeFeed/feedEntry.ts';
import { initialItemState, itemDecider } from '../../domain/content/itemDecider.ts';
import { checkEvent, EVENT_TYPES, eventCatalogue, type EventDataOf, type EventType } from '../../domain/shared/eventCatalogue.ts';
import { upcast, registerUpcaster } from '../../domain/shared/upcasting.ts';

const at = '2024-06-01T10:00:00.000Z';
const uuid = '0190f5a2-7c1e-7000-8000-000000000001';
const snapshot = {
  id: 'a1',
  status: 'published',
  sort: null,
  createdAt: at,
  updatedAt: at,
  userCreated: uuid,
  userUpdated: null,
  deletedAt: null,
  title: 'Hello',
  body: { en: 'Text', nested: [1, { deep: true }] },
};
const item = { collection: 'articles', itemId: 'a1', snapshot, delta: { title: 'Hello' } };
const field = {
  field: 'title',
  type: 'string',
  interface: null,
  display: null,
  options: { maxLength: 200 },
  required: true,
  sort: 1,
  sensitivity: null,
  indexed: false,
  note: null,
} as const;
const meta = {
  displayName: 'Articles',
  icon: null,
  note: null,
  singleton: false,
  status_field: 'status',
  sort_field: null,
  editorialWorkflow: false,
  requireSeparateReviewer: false,
  versioning: true,
};
const relation = {
  id: 'article-author',
  kind: 'm2o',
  collection: 'articles',
  field: 'author',
  relatedCollection: 'authors',
  relatedField: null,
  junctionCollection: null,
  junctionField: null,
  junctionRelatedField: null,
  junctionItemField: null,
  junctionCollectionField: null,
  allowedCollections: null,
  onDelete: 'restrict',
} as const;
const issuerConfig: EventDataOf<'issuer.created'>['config'] = {
  issuer: 'https://id.example.test',
  jwksUri: 'https://id.example.test/jwks',
  discoveryUrl: null,
  audience: 'svc',
  algorithms: ['RS256'],
  claimMapping: { email: 'email', roles: 'groups' },
  roleMapping: { editors: { roleId: uuid }, admins: { systemKey: 'admin' } },
  defaultRoleId: null,
  jitProvisioning: true,
  clockSkewSeconds: 30,
  enabled: true,
};
const subscription = { subscriptionId: uuid };
const version = { collection: 'articles', itemId: 'a1', key: 'draft-1' };
const pin = { collection: 'articles', itemId: 'a1', field: 'author' };

const extensionBundle = {
  name: 'word-count',
  version: '1.0.0',
  description: 'Counts words',
  entry: 'run',
  capabilities: ['log', 'items:read:articles'],
  ui: { panels: [{ id: 'stats', title: 'Stats', location: 'dashboard' }] },
  keyId: 'acme-1',
  official: false,
  signature: 'c2lnbmF0dXJl',
  sha256: 'a'.repeat(64),
  bundle: '{"manifest":{"name":"word-count","version":"1.0.0","capabilities":[],"entry":"run"},"code":"exports.run = () => 1;"}',
};

/** One event of each type, as its decider (or, for the few appended directly, its handler) writes it. */
const samples: { [Type in EventType]: EventDataOf<Type> } = {
  'site.created': { siteId: 'acme', name: 'Acme', createdAt: at },
  'site.deleted': { siteId: 'acme', deletedAt: at },
  'site.configured': { siteId: 'acme', changes: { displayTitle: 'Acme News', branding: { brandColor: '#112233' }, themeOverrides: { dark: { primary: '210 40% 98%' } } } },
  'setting.set': { key: 'upload_policy', value: { maxBytes: 1024, allowedMimeTypes: [], allowedExtensions: [], catalogue: [] } },
  'setting.removed': { key: 'upload_policy' },
  'api_key.created': { apiKeyId: uuid, name: 'CI', keyHash: 'h', prefix: 'svc_ab', userId: null, roleId: uuid },
  'api_key.revoked': { apiKeyId: uuid },
  'email_token.issued': { tokenId: uuid, userId: uuid, purpose: 'verify_email', tokenHash: 'h', expiresAt: at },
  'email_token.consumed': { tokenId: uuid, userId: uuid, purpose: 'reset_password' },
  'issuer.created': { issuerId: uuid, config: issuerConfig },
  'issuer.updated': { issuerId: uuid, config: { ...issuerConfig, enabled: false } },
  'issuer.deleted': { issuerId: uuid },
  'role.created': { roleId: uuid, name: 'Editors', admin: false, parentId: null, systemKey: null, description: 'Edit content' },
  'role.updated': { roleId: uuid, changes: { name: 'Writers', parentId: null } },
  'role.deleted': { roleId: uuid },
  'session.started': { sessionId: uuid, userId: uuid, refreshTokenHash: 'h', expiresAt: at, userAgent: 'curl', ip: '127.0.0.1', impersonatorId: null },
  'session.refreshed': { sessionId: uuid, previousTokenHash: 'h1', refreshTokenHash: 'h2', expiresAt: at },
  'session.revoked': { sessionId: uuid, reason: 'token_reuse' },
  'subscriber_access.granted': { collection: 'articles' },
  'subscriber_access.revoked': { collection: 'articles' },
  'team.created': { teamId: uuid, name: 'Desk', description: null, members: [uuid] },
  'team.updated': { teamId: uuid, changes: { members: [] } },
  'team.deleted': { teamId: uuid },
  'release.created': {
    releaseId: uuid,
    name: 'Spring launch',
    atomicityMode: 'all_or_nothing',
    publishAt: at,
    maintenanceWindow: { windows: [{ dow: 1, start: '22:00', end: '23:30' }] },
    status: 'scheduled',
    items: [{ collection: 'articles', itemId: 'a1', targetStatus: 'published', revisionId: null }],
  },
  'release.updated': { releaseId: uuid, changes: { publishAt: null, status: 'draft', name: 'Later' } },
  'release.items_added': { releaseId: uuid, items: [{ collection: 'articles', itemId: 'a2', targetStatus: 'archived', revisionId: uuid }] },
  'release.items_removed': { releaseId: uuid, items: [{ collection: 'articles', itemId: 'a1' }] },
  'release.deleted': { releaseId: uuid },
  'release.published': {
    releaseId: uuid,
    status: 'partially_failed',
    atomicityMode: 'best_effort',
    trigger: 'scheduler',
    outcomes: [
      { collection: 'articles', itemId: 'a1', outcome: 'published', fromVersion: 2, toVersion: 3 },
      { collection: 'articles', itemId: 'a2', outcome: 'failed', reason: 'EDITORIAL_GATE_REQUIRED', message: 'needs an approval' },
    ],
  },
  'file.registered': {
    fileId: uuid,
    key: 'uploads/0190d6a0/cover.png',
    filename: 'cover.png',
    title: 'Cover',
    type: 'image/png',
    size: 1234,
    tags: ['hero'],
    folder: 'covers',
    width: 800,
    height: 600,
    source: 'upload',
  },
  'file.updated': { fileId: uuid, changes: { title: null, tags: [], folder: 'archive' } },
  'file.deleted': { fileId: uuid, key: 'uploads/0190d6a0/cover.png' },
  'transform_preset.created': { presetId: uuid, key: 'thumb', name: 'Thumbnail', dsl: { width: 200, format: 'webp' } },
  'transform_preset.updated': { presetId: uuid, changes: { name: 'Small thumbnail' } },
  'transform_preset.deleted': { presetId: uuid, key: 'thumb' },
  'release.reverted': { releaseId: uuid, forced: false, items: [{ collection: 'articles', itemId: 'a1', fromVersion: 3, toVersion: 4, restoredVersion: 2 }] },
  'page.created': {
    pageId: uuid,
    slug: 'blog/spring-launch',
    title: 'Spring launch',
    layoutConfig: { blocks: [{ key: 'hero', type: 'hero', props: { tone: 'dark' } }, { key: 'latest', collection: 'articles', sort: ['-published_at'], limit: 3 }] },
  },
  'page.updated': { pageId: uuid, changes: { slug: 'blog/spring', layoutConfig: null } },
  'page.deleted': { pageId: uuid, slug: 'blog/spring' },
  'user.created': { userId: uuid, email: 'ada@example.test', passwordHash: null, firstName: 'Ada', lastName: null, roleId: uuid, status: 'invited' },
  'user.password_changed': { userId: uuid, passwordHash: 'h', tokenVersion: 2, reason: 'reset' },
  'user.sign_in_failed': { userId: uuid, reason: 'wrong_password' },
  'user.email_verified': { userId: uuid, email: 'ada@example.test' },
  'user.updated': { userId: uuid, changes: { status: 'suspended', avatar: null } },
  'user.deleted': { userId: uuid },
  'user.preferences_updated': { userId: uuid, changes: { saveAction: 'stay' } },
  'user.external_identity_linked': { userId: uuid, issuerId: uuid, externalId: 'sub-1' },
  'user.impersonated': { userId: uuid, impersonatorId: uuid, sessionId: uuid },
  'auth.sign_in_failed': { emailHash: 'h', reason: 'unknown_email' },
  'policy.created': { policyId: uuid, name: 'Readers', description: null },
  'policy.updated': { policyId: uuid, changes: { description: 'Read all' } },
  'policy.deleted': { policyId: uuid },
  'policy.permission_added': { policyId: uuid, permissionId: uuid, collection: 'articles', action: 'read', fields: ['*'], conditions: { status: { _eq: 'published' } } },
  'policy.permission_removed': { policyId: uuid, permissionId: uuid },
  'policy.attached': { policyId: uuid, target: { kind: 'role', id: uuid } },
  'policy.detached': { policyId: uuid, target: { kind: 'team', id: uuid } },
  'item.created': item,
  'item.updated': { ...item, cause: { draft: true }, draft: { status: 'draft', sort: null, title: 'Draft' } },
  'item.deleted': { ...item, snapshot: { ...snapshot, deletedAt: at }, delta: { deletedAt: at } },
  'item.restored': { ...item, delta: { deletedAt: null } },
  'item.reverted': { ...item, cause: { revisionId: uuid } },
  'item.promoted': { ...item, cause: { version: 'draft-1' } },
  'item.hard_deleted': { ...item, delta: {} },
  'item.sensitive_read': { reads: [{ collection: 'patients', itemId: 'p1', fields: [{ field: 'diagnosis', sensitivity: 'phi' }] }] },
  'collection.created': { collection: 'articles', meta },
  'collection.updated': { collection: 'articles', meta: { ...meta, icon: 'article' } },
  'collection.deleted': { collection: 'articles' },
  'field.added': { collection: 'articles', field },
  'field.updated': { collection: 'articles', field: { ...field, indexed: true } },
  'field.removed': { collection: 'articles', field: 'title' },
  'relation.created': { relationId: relation.id, relation },
  'relation.updated': { relationId: relation.id, relation: { ...relation, onDelete: 'set null' } },
  'relation.deleted': { relationId: relation.id, relation },
  'version.created': { ...version, name: 'Draft 1', data: { title: 'Hello' }, baseVersion: 3 },
  'version.updated': { ...version, data: { title: 'Hello again' }, changes: { title: 'Hello again' } },
  'version.deleted': version,
  'version.promoted': { ...version, mainVersion: 4, data: { title: 'Hello again' }, revisionId: uuid, mainDiverged: false },
  'pin.created': { ...pin, revisionId: uuid, targetCollection: 'authors', targetItemId: 'au1' },
  'pin.released': pin,
  'cdc_subscription.created': {
    ...subscription,
    name: 'hooks',
    kind: 'webhook',
    url: 'https://hooks.example.test',
    secretCiphertext: 'c',
    collections: ['articles'],
    operations: null,
    cursorSeq: 0,
  },
  'cdc_subscription.updated': { ...subscription, changes: { url: 'https://other.example.test', collections: null } },
  'cdc_subscription.paused': subscription,
  'cdc_subscription.resumed': subscription,
  'cdc_subscription.acknowledged': { ...subscription, cursorSeq: 42 },
  'cdc_subscription.replayed': { ...subscription, cursorSeq: 0, generation: 2, previousState: 'dead', state: 'active' },
  'cdc_subscription.dispatch_requested': subscription,
  'cdc_subscription.died': { ...subscription, reason: 'Kept failing' },
  'cdc_subscription.went_stale': { ...subscription, reason: 'Fell behind retention' },
  'cdc_subscription.deleted': subscription,
  'push_subscription.registered': { subscriptionId: 'e1', userId: uuid, endpoint: 'https://push.example.test/1', keys: { p256dh: 'k', auth: 'a' } },
  'push_subscription.removed': { subscriptionId: 'e1', reason: 'gone' },
  'notification.published': { notificationId: uuid, kind: 'system', severity: 'info', title: 'Hi', body: null, deepLink: null, entityId: null },
  editorial_transition: {
    collection: 'articles',
    itemId: 'a1',
    move: 'reject',
    from: 'in_review',
    to: 'rejected',
    actorId: uuid,
    reason: 'Sources missing',
    reviewerId: null,
    authorId: uuid,
    itemVersion: 2,
  },
  consent_granted: { userId: uuid, consentType: 'marketing', source: 'banner', version: '2024-06' },
  consent_withdrawn: { userId: uuid, consentType: 'sale_share', source: 'settings', version: '2024-06' },
  'processing_restriction.applied': { userId: uuid, reason: 'Disputed accuracy' },
  'processing_restriction.lifted': { userId: uuid },
  encryption_key_rotated: { keyId: 'k2', previousKeyId: 'k1' },
  envelope_mode_changed: { enabled: true },
  encryption_values_resealed: { operation: 'rewrap', keyId: 'k2', envelope: false, values: 1000 },
  decryption_failed: { collection: 'patients', itemId: 'p1', field: 'ssn', valueId: uuid, keyId: 'k1', reason: 'sealed value did not authenticate' },
  erasure_requested: { erasureId: uuid, collection: 'patients', subjectHash: 'h', reason: 'Art. 17 request', requestedBy: uuid, recordIds: ['p1'] },
  erasure_confirmed: { erasureId: uuid, confirmedBy: uuid },
  data_erased: { erasureId: uuid, collection: 'patients', subjectHash: 'h', recordCount: 1, recordIds: ['p1'], shreddedValues: 3 },
  'email_layout.created': { layoutId: uuid, version: 1, layout: { name: 'Default', html: '<main>{{content}}</main>' } },
  'email_layout.updated': { layoutId: uuid, version: 2, layout: { name: 'Plain', html: '{{content}}' }, changed: ['html', 'name'] },
  'email_layout.deleted': { layoutId: uuid },
  'email_template.created': {
    templateId: uuid,
    version: 1,
    template: { key: 'welcome', subject: 'Hi {{ name }}', html: '<p>Hi</p>', text: null, layoutId: uuid, category: 'transactional', variables: ['name'] },
  },
  'email_template.updated': {
    templateId: uuid,
    version: 2,
    template: { key: 'welcome', subject: 'Hello', html: null, text: 'Hello', layoutId: null, category: 'marketing', variables: [] },
    changed: ['subject'],
  },
  'email_template.deleted': { templateId: uuid, key: 'welcome' },
  email_suppressed: { emailHash: 'h', email: 'a@example.test', reason: 'bounce' },
  email_unsubscribed: { emailHash: 'h', email: 'a@example.test', method: 'one_click' },
  email_unsuppressed: { emailHash: 'h' },
  'email_send.planned': {
    sendId: uuid,
    category: 'marketing',
    test: false,
    templateId: uuid,
    templateKey: 'news',
    templateVersion: 3,
    layoutId: null,
    layoutVersion: null,
    recipients: ['h1', 'h2'],
    skipped: { suppressed: 1, noConsent: 0, restricted: 0 },
    variableNames: ['issue'],
  },
  'email_send.delivered': { sendId: uuid, results: [{ hash: 'h1', status: 'sent', messageId: '<m@x>', response: '250 ok' }] },
  'flow.created': { flowId: uuid, ownerId: uuid, version: 1, flow: { name: 'Notify', description: null, status: 'active' as const, trigger: 'event' as const, triggerOptions: { collection: 'articles', action: ['create' as const] }, graph: { nodes: [{ id: 'log', operation: 'log', options: { message: 'hi' } }], edges: [] }, actAs: null }, nextRunAt: null },
  'flow.updated': { flowId: uuid, version: 2, flow: { name: 'Notify', description: null, status: 'active' as const, trigger: 'event' as const, triggerOptions: { collection: 'articles', action: ['create' as const] }, graph: { nodes: [{ id: 'log', operation: 'log', options: { message: 'hi' } }], edges: [] }, actAs: null }, changed: ['graph'], nextRunAt: at },
  'flow.deleted': { flowId: uuid },
  'flow.token_set': { flowId: uuid, tokenHash: 'h' },
  'flow.token_cleared': { flowId: uuid },
  'flow.schedule_fired': { flowId: uuid, dueAt: at, runId: uuid, nextRunAt: at },
  'flow_run.queued': { runId: uuid, flowId: uuid, trigger: 'manual', input: { a: 1 }, depth: 0, dryRun: false, replayOf: null },
  'flow_run.started': { runId: uuid, flowId: uuid },
  'flow_run.step_recorded': { runId: uuid, flowId: uuid, seq: 1, nodeId: 'log', operation: 'log', status: 'succeeded', output: { message: 'hi' }, error: null, durationMs: 1.5, attempts: 1, startedAt: at },
  'flow_run.finished': { runId: uuid, flowId: uuid, status: 'succeeded', error: null },
  'preset.created': {
    presetId: uuid, preset: { collection: 'articles', bookmark: null, userId: uuid, roleId: null, layout: 'table', query: { fields: ['title'] }, options: {}, icon: null, color: null },
  },
  'preset.updated': {
    presetId: uuid, changed: ['layout'],
    preset: { collection: 'articles', bookmark: 'Mine', userId: null, roleId: uuid, layout: 'cards', query: {}, options: { size: 2 }, icon: 'star', color: '#336699' },
  },
  'preset.deleted': { presetId: uuid },
  'dashboard.created': { dashboardId: uuid, dashboard: { name: 'Editorial', icon: null, color: '#336699', note: null } },
  'dashboard.updated': { dashboardId: uuid, dashboard: { name: 'Editorial desk', icon: 'chart', color: '#336699', note: null }, changed: ['icon', 'name'] },
  'dashboard.deleted': { dashboardId: uuid, panelIds: [uuid] },
  'dashboard.panel_added': {
    dashboardId: uuid, panelId: uuid, panel: { name: 'Per day', type: 'line', position: { x: 0, y: 0, width: 6, height: 4 }, query: { collection: 'articles', aggregate: 'count' }, options: null },
  },
  'dashboard.panel_updated': {
    dashboardId: uuid, panelId: uuid, changed: ['name'],
    panel: { name: 'Per week', type: 'line', position: { x: 0, y: 0, width: 6, height: 4 }, query: { collection: 'articles', aggregate: 'count' }, options: { stacked: true } },
  },
  'dashboard.panel_removed': { dashboardId: uuid, panelId: uuid },
  'tm_entry.saved': {
    entryId: uuid, sourceLang: 'en', targetLang: 'de-de', sourceText: 'Hello  World', normalizedSource: 'hello world', targetText: 'Hallo Welt', quality: 100,
    context: null, source: 'articles/a1', entrySource: 'manual',
  },
  'tm_entry.updated': { entryId: uuid, changes: { targetText: 'Hallo, Welt', quality: 90 } },
  'tm_entry.deleted': { entryId: uuid },
  'tm_glossary_term.created': { termId: uuid, sourceLang: 'en', targetLang: 'de', term: 'Widget', normalizedTerm: 'widget', translation: 'Widget', caseSensitive: false },
  'tm_glossary_term.updated': { termId: uuid, changes: { translation: 'Bauteil' } },
  'tm_glossary_term.deleted': { termId: uuid },
  'report.requested': { reportId: uuid, params: { from: at, to: at, collections: ['articles'], actions: [], format: 'json' } },
  'report.started': { reportId: uuid, attempt: 1, total: 10 },
  'report.progressed': { reportId: uuid, entries: 5, total: 10 },
  'report.completed': {
    reportId: uuid, entries: 10, bytes: 2048, sha256: 'ab', firstPosition: 1, lastPosition: 20, valid: true, problems: 0, signature: 's', keyId: 'k', generatedAt: at,
  },
  'report.failed': { reportId: uuid, error: 'disk full' },
  'ai_approval.requested': {
    approvalId: uuid, skill: 'items.delete', input: { collection: 'articles', id: uuid }, requester: { userId: uuid, via: 'session', apiKeyId: null, roleId: null },
    agent: { id: 'conversation:1', role: null, runId: null, intentId: null }, pins: [{ streamId: 's/item/articles/1', version: 2 }],
    diff: { kind: 'delete', collection: 'articles', id: uuid, item: { title: 'T' } }, constitutionVersion: null,
  },
  'ai_approval.agent_reviewed': { approvalId: uuid, decision: 'approved', reviewerId: uuid, reviewerApiKeyId: uuid, reviewerAgentId: null, reason: null },
  'ai_approval.approved': { approvalId: uuid, approvedBy: uuid, reason: 'Looks right' },
  'ai_approval.rejected': { approvalId: uuid, rejectedBy: uuid, reason: null },
  'ai_approval.executed': { approvalId: uuid },
  'ai_approval.failed': { approvalId: uuid, code: 'SKILL_DENIED', message: 'Lost delete' },
  'ai_approval.staled': { approvalId: uuid, movedStreams: ['s/item/articles/1'] },
  'ai_conversation.exchanged': {
    conversationId: uuid, userId: uuid, title: 'delete article 1',
    messages: [
      { messageId: uuid, role: 'user', text: 'delete article 1', status: null, skill: null, approvalId: null, stagedId: null, code: null },
      { messageId: uuid, role: 'assistant', text: 'Waits for approval', status: 'pending_approval', skill: 'items.delete', approvalId: uuid, stagedId: null, code: null },
    ],
  },
  'ai_conversation.deleted': { conversationId: uuid, userId: uuid },
  'agent_role.created': { name: 'translator', description: null, skills: ['items.*'], collections: ['articles'] },
  'agent_role.updated': { name: 'translator', description: 'Translates', skills: ['items.*'], collections: ['*'], changed: ['collections', 'description'] },
  'agent_role.deleted': { name: 'translator' },
  'agent_autonomy.set': { role: 'translator', level: 'stage', promotionId: null },
  'agent_promotion.requested': { promotionId: uuid, role: 'translator', level: 'act', reason: 'Trusted now', requestedBy: uuid },
  'agent_promotion.decided': { promotionId: uuid, role: 'translator', level: 'act', decision: 'approved', reason: null, decidedBy: uuid },
  'agent_constitution.draft_saved': { revision: 1, text: 'deny items.delete' },
  'agent_constitution.compiled': { revision: 1, rules: [{ line: 1, text: 'deny items.delete', effect: 'deny', skills: ['items.delete'], collections: null, roles: null }] },
  'agent_constitution.activated': {
    version: 1, revision: 1, text: 'max autonomy stage', rules: [{ line: 1, text: 'max autonomy stage', effect: 'max_autonomy', level: 'stage', roles: null }],
  },
  'agent_freeze.engaged': { freezeId: uuid, scope: 'role', target: 'translator', reason: 'Runaway edits' },
  'agent_freeze.lifted': { freezeId: uuid, scope: 'site', target: null, reason: null },
  'agent_intent.created': { intentId: uuid, title: 'Launch', description: null, role: 'writer', createdBy: uuid },
  'agent_intent.updated': { intentId: uuid, title: 'Launch v2', description: 'All of it', role: null, changed: ['description', 'role', 'title'] },
  'agent_intent.closed': { intentId: uuid, closedBy: uuid, reason: null },
  'agent_goal.created': {
    goalId: uuid, title: 'Tidy', instructions: 'list articles', steps: [{ skill: 'items.list', input: { collection: 'articles' } }], role: null, intentId: null,
    execution: 'sync', requester: { userId: uuid, via: 'session', apiKeyId: null, roleId: null },
  },
  'agent_goal.decomposed': { goalId: uuid, steps: [{ skill: 'items.list', input: { collection: 'articles' } }] },
  'agent_goal.run_queued': { goalId: uuid, runId: uuid },
  'agent_goal.run_started': { goalId: uuid, runId: uuid },
  'agent_goal.step_recorded': { goalId: uuid, runId: uuid, index: 0, skill: 'items.list', status: 'executed', approvalId: null, stagedId: null, code: null, message: null, result: { items: [] } },
  'agent_goal.run_finished': { goalId: uuid, runId: uuid, status: 'halted', code: 'AGENT_FROZEN', message: 'Frozen' },
  'agent_goal.settled': { goalId: uuid, outcome: 'succeeded', summary: null, settledBy: uuid },
  'agent_staged.staged': {
    stagedId: uuid, skill: 'items.create', input: { collection: 'articles', items: { title: 'T' } }, requester: { userId: uuid, via: 'apiKey', apiKeyId: uuid, roleId: uuid },
    agent: { id: 'goal:1', role: 'writer', runId: uuid, intentId: null }, constitutionVersion: 2, runAfter: at,
  },
  'agent_staged.vetoed': { stagedId: uuid, vetoedBy: uuid, reason: 'Not now' },
  'agent_staged.started': { stagedId: uuid },
  'agent_staged.finished': { stagedId: uuid, status: 'failed', code: 'SKILL_DENIED', message: 'Lost the right' },
  'agent_incident.raised': { incidentId: uuid, role: 'git-sync', severity: 'critical', title: 'CI failed', detail: 'build 12', intentId: null, raisedBy: uuid },
  'agent_incident.resolved': { incidentId: uuid, resolvedBy: uuid, note: null },
  'cloud_sync_pipeline.created': {
    pipelineId: uuid,
    target: 'firestore',
    name: 'Mirror',
    projectId: 'demo-project',
    collections: ['articles'],
    targetPath: 'cms/{collection}',
    syncOnCreate: true,
    syncOnUpdate: true,
    syncOnDelete: false,
    credentials: `svc:sealed:${uuid}`,
    startSeq: 0,
  },
  'cloud_sync_pipeline.updated': { pipelineId: uuid, changes: { name: 'Mirror 2', credentials: `svc:sealed:${uuid}` } },
  'cloud_sync_pipeline.deleted': { pipelineId: uuid },
  'git_integration.connected': {
    integrationId: uuid,
    provider: 'github',
    repoFullName: 'acme/site',
    displayName: 'Site repo',
    authMethod: 'pat',
    token: `svc:sealed:${uuid}`,
    installationId: null,
    webhookSecret: `svc:sealed:${uuid}`,
    syncConfig: { preview: true, manifestPath: 'svc.config.json', intentsPath: 'svc.intents.json', branch: null },
  },
  'git_integration.updated': { integrationId: uuid, changes: { displayName: 'Repo', status: 'paused' } },
  'git_integration.secret_rotated': { integrationId: uuid, webhookSecret: `svc:sealed:${uuid}` },
  'git_integration.disconnected': { integrationId: uuid },
  'git_webhook.received': { integrationId: uuid, deliveryId: 'd-1', event: 'pull_request', action: 'opened', pullRequest: 7, outcome: 'preview_synced' },
  'git_integration.gitops_synced': { integrationId: uuid, commit: 'a'.repeat(40), path: 'svc.intents.json', created: [{ key: 'launch', intentId: uuid }], updated: [], closed: [] },
  'extension.installed': { extensionId: uuid, ...extensionBundle },
  'extension.upgraded': { extensionId: uuid, previousVersion: '0.9.0', granted: ['log'], ...extensionBundle },
  'extension.enabled': { extensionId: uuid },
  'extension.disabled': { extensionId: uuid },
  'extension.capabilities_granted': { extensionId: uuid, granted: ['log'] },
  git_ci_failed: { integrationId: uuid, runId: '42', commit: 'a'.repeat(40), pullRequest: 7, conclusion: 'failure', incidentId: uuid },
};

describe('the event catalogue', () => {
  it.each(EVENT_TYPES)('takes a sample of %s as it is written, and keeps its data as it is', (type) => {
    const data = samples[type];
    const checked = checkEvent(type, data);
    expect(checked).toEqual({ event: { type, data } });
    // Not a parsed copy: the very object, so readers see the log's keys, their order and any extra key.
    expect('event' in checked && checked.event.data).toBe(data);
  });

  it.each(EVENT_TYPES)('refuses %s data that lacks what its schema asks for', (type) => {
    expect(checkEvent(type, {})).toHaveProperty('problem');
    expect(checkEvent(type, null)).toHaveProperty('problem');
  });

  it('says where the data is wrong', () => {
    const checked = checkEvent('item.updated', { ...item, snapshot: { ...snapshot, id: 7 } });
    expect(checked).toEqual({ problem: expect.stringContaining('snapshot.id') });
    expect(checkEvent('item.created', { ...item, delta: ['title'] })).toEqual({ problem: 'delta: expected an object' });
    expect(checkEvent('field.added', { collection: 'articles', field: { field: 'title', type: 'string' } })).toEqual({
      problem: expect.stringContaining('field.interface'),
    });
  });

  it('refuses a type it does not know', () => {
    expect(checkEvent('probe.happened', {})).toEqual({ problem: '"probe.happened" is not an event type of the catalogue' });
    expect(checkEvent('constructor', {})).toHaveProperty('problem');
  });

  it('leaves the content of an item snapshot unchecked, however deep, and keeps keys no schema names', () => {
    const deep = { ...snapshot, tree: JSON.parse('{"a":'.repeat(50) + '1' + '}'.repeat(50)) as unknown, '': 'empty key' };
    const data = { ...item, snapshot: deep, addedLater: true };
    expect(checkEvent('item.created', data)).toEqual({ event: { type: 'item.created', data } });
  });

  it('takes every event the item decider writes', () => {
    const acting = { collection: 'articles', itemId: 'a1', actorId: uuid, now: at };
    const changes = { values: { title: 'Hello', body: { en: 'Text' } }, keepHashes: [], translations: {} };
    const created = itemDecider.decide({ type: 'createItem', ...acting, changes, required: ['title'] }, initialItemState());
    const live = itemDecider.evolve(initialItemState(), created[0]!);
    const deleted = itemDecider.decide({ type: 'deleteItem', ...acting }, live);
    const events = [...created, ...deleted, ...itemDecider.decide({ type: 'hardDeleteItem', ...acting }, live)];
    for (const event of events) expect(checkEvent(event.type, event.data), event.type).toHaveProperty('event');
  });

  it('knows every event type the change feed maps', () => {
    expect(FEED_EVENT_TYPES.filter((type) => !(type in eventCatalogue))).toEqual([]);
  });
});

describe('upcasting', () => {
  it('lifts data through every registered step, from the version it was stored at', () => {
    const type = 'probe.renamed_for_upcasting_test';
    registerUpcaster(type, 1, (data) => ({ fullName: data.name }));
    registerUpcaster(type, 2, (data) => ({ ...data, displayName: String(data.fullName).toUpperCase() }));
    expect(upcast(type, 1, { name: 'Ada' })).toEqual({ version: 3, data: { fullName: 'Ada', displayName: 'ADA' } });
    expect(upcast(type, 2, { fullName: 'Grace' })).toEqual({ version: 3, data: { fullName: 'Grace', displayName: 'GRACE' } });
    expect(upcast(type, 3, { fullName: 'G', displayName: 'g' })).toEqual({ version: 3, data: { fullName: 'G', displayName: 'g' } });
  });
});
