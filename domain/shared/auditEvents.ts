// The audited actions and what the audit list says of each beyond who, what, which target and when:
// every event type of the catalogue is an audited action (projections/auditProjection.ts), and each
// declares its `details`, an allowlist of what may leave the event for the audit list. Details hold
// ids, counts, kinds, states and schema names only, never a personal value: no email, name, IP
// address, user agent, free text (reasons, titles, descriptions, messages), hash of a person, item
// content or setting value. The log itself keeps the full event.
import type { DomainEvent, EventDataOf, EventType } from './eventCatalogue.ts';

export type AuditDetailValue = string | number | boolean | null | readonly string[];
export type AuditDetails = Readonly<Record<string, AuditDetailValue>>;

/** The keys of `Data` whose values are a string, a number or a boolean (optional or nullable). */
type ScalarKeys<Data> = {
  [Key in keyof Data]-?: [NonNullable<Data[Key]>] extends [never] ? never : NonNullable<Data[Key]> extends string | number | boolean ? Key : never;
}[keyof Data] &
  string;

/**
 * What an event type's entry shows: the data's keys it copies as they are (each a non-personal
 * value), or a function that derives the details (counts, the names of the keys that changed).
 */
type Declaration<Data> = readonly ScalarKeys<Data>[] | ((data: Data) => Record<string, AuditDetailValue | undefined>);

/** The names of the keys a change set holds (never their values). */
function changedKeys(changes: object): string[] {
  return Object.keys(changes).sort();
}

const itemDetails = (data: EventDataOf<'item.created'>) => ({ collection: data.collection, itemId: data.itemId, changedFields: changedKeys(data.delta) });
const relationDetails = (data: EventDataOf<'relation.created'>) => ({
  relationId: data.relationId,
  kind: data.relation.kind,
  collection: data.relation.collection,
  field: data.relation.field,
});
const fieldDetails = (data: EventDataOf<'field.added'>) => ({
  collection: data.collection,
  field: data.field.field,
  type: data.field.type,
  sensitivity: data.field.sensitivity,
});
const versionKey = ['collection', 'itemId', 'key'] as const;
const textOf = (value: unknown) => (typeof value === 'string' ? value : null);
const panelDetails = (panel: EventDataOf<'dashboard.panel_added'>['panel']) => ({
  type: panel.type,
  source: textOf(panel.query.source) ?? 'items',
  // Not `collection`: the audit source's `collection` (docs/insights.md) counts writes of a collection's items.
  queryCollection: textOf(panel.query.collection),
  aggregate: textOf(panel.query.aggregate),
});

/**
 * One declaration per event type: a new event type does not compile until it says what its audit
 * entry shows. The spec's audit actions (`consent_granted`, `data_erased`, …) are event types.
 */
export const AUDIT_DETAILS: { readonly [Type in EventType]: Declaration<EventDataOf<Type>> } = {
  // Sites and settings: a setting's value may be a secret or personal; its key is not.
  'site.created': ['siteId'],
  'site.deleted': ['siteId'],
  'site.configured': (data) => ({ siteId: data.siteId, changed: changedKeys(data.changes) }),
  'setting.set': ['key'],
  'setting.removed': ['key'],

  // Identity: never an email, a name, a password or token hash, an IP address or a user agent.
  'api_key.created': ['apiKeyId', 'userId', 'roleId'],
  'api_key.revoked': ['apiKeyId'],
  'email_token.issued': ['tokenId', 'userId', 'purpose', 'expiresAt'],
  'email_token.consumed': ['tokenId', 'userId', 'purpose'],
  'issuer.created': (data) => ({ issuerId: data.issuerId, enabled: data.config.enabled, jitProvisioning: data.config.jitProvisioning }),
  'issuer.updated': (data) => ({ issuerId: data.issuerId, enabled: data.config.enabled, jitProvisioning: data.config.jitProvisioning }),
  'issuer.deleted': ['issuerId'],
  'role.created': ['roleId', 'admin', 'parentId', 'systemKey'],
  'role.updated': (data) => ({ roleId: data.roleId, changed: changedKeys(data.changes), admin: data.changes.admin, parentId: data.changes.parentId }),
  'role.deleted': ['roleId'],
  'session.started': ['sessionId', 'userId', 'impersonatorId'],
  'session.refreshed': ['sessionId'],
  'session.revoked': ['sessionId', 'reason'],
  'subscriber_access.granted': ['collection'],
  'subscriber_access.revoked': ['collection'],
  'team.created': (data) => ({ teamId: data.teamId, memberCount: data.members.length }),
  'team.updated': (data) => ({ teamId: data.teamId, changed: changedKeys(data.changes), memberCount: data.changes.members?.length }),
  'team.deleted': ['teamId'],
  'user.created': ['userId', 'roleId', 'status'],
  'user.password_changed': ['userId', 'reason'],
  'user.sign_in_failed': (data) => ({ userId: data.userId, reason: data.reason, failures: data.failures ?? 1 }),
  'user.email_verified': ['userId'],
  'user.updated': (data) => ({ userId: data.userId, changed: changedKeys(data.changes), roleId: data.changes.roleId, status: data.changes.status }),
  'user.deleted': ['userId'],
  'user.preferences_updated': (data) => ({ userId: data.userId, changed: changedKeys(data.changes) }),
  // The external id is the person's id at their identity provider (an email, at some): not copied.
  'user.external_identity_linked': ['userId', 'issuerId'],
  'user.impersonated': ['userId', 'impersonatorId', 'sessionId'],
  'auth.sign_in_failed': (data) => ({ reason: data.reason, failures: data.failures ?? 1 }),

  // Access
  'policy.created': ['policyId'],
  'policy.updated': (data) => ({ policyId: data.policyId, changed: changedKeys(data.changes) }),
  'policy.deleted': ['policyId'],
  'policy.permission_added': ['policyId', 'permissionId', 'collection', 'action'],
  'policy.permission_removed': ['policyId', 'permissionId'],
  'policy.attached': (data) => ({ policyId: data.policyId, targetKind: data.target.kind, targetId: data.target.id }),
  'policy.detached': (data) => ({ policyId: data.policyId, targetKind: data.target.kind, targetId: data.target.id }),

  // Content: the names of the fields a write set, never their values.
  'item.created': itemDetails,
  'item.updated': itemDetails,
  'item.deleted': itemDetails,
  'item.restored': itemDetails,
  'item.reverted': itemDetails,
  'item.promoted': itemDetails,
  'item.hard_deleted': itemDetails,
  'item.sensitive_read': (data) => ({
    recordCount: new Set(data.reads.map((read) => `${read.collection}/${read.itemId}`)).size,
    collections: [...new Set(data.reads.map((read) => read.collection))].sort(),
  }),
  'collection.created': ['collection'],
  'collection.updated': ['collection'],
  'collection.deleted': ['collection'],
  'field.added': fieldDetails,
  'field.updated': fieldDetails,
  'field.removed': ['collection', 'field'],
  'relation.created': relationDetails,
  'relation.updated': relationDetails,
  'relation.deleted': relationDetails,
  'version.created': [...versionKey, 'baseVersion'],
  'version.updated': (data) => ({ collection: data.collection, itemId: data.itemId, key: data.key, changedFields: data.changes ? changedKeys(data.changes) : undefined }),
  'version.deleted': versionKey,
  'version.promoted': [...versionKey, 'mainVersion', 'revisionId', 'mainDiverged'],
  'pin.created': ['collection', 'itemId', 'field', 'revisionId', 'targetCollection', 'targetItemId'],
  'pin.released': ['collection', 'itemId', 'field'],

  // Change feed, push, notifications: never a webhook URL, a push endpoint or a notification's text.
  'cdc_subscription.created': ['subscriptionId', 'kind', 'cursorSeq'],
  'cdc_subscription.updated': (data) => ({ subscriptionId: data.subscriptionId, changed: changedKeys(data.changes) }),
  'cdc_subscription.paused': ['subscriptionId'],
  'cdc_subscription.resumed': ['subscriptionId'],
  'cdc_subscription.acknowledged': ['subscriptionId', 'cursorSeq'],
  'cdc_subscription.replayed': (data) => ({ subscriptionId: data.subscriptionId, cursorSeq: data.cursorSeq, from: data.previousState, to: data.state }),
  'cdc_subscription.dispatch_requested': ['subscriptionId'],
  'cdc_subscription.died': ['subscriptionId'],
  'cdc_subscription.went_stale': ['subscriptionId'],
  'cdc_subscription.deleted': ['subscriptionId'],
  'push_subscription.registered': ['subscriptionId', 'userId'],
  'push_subscription.removed': ['subscriptionId', 'reason'],
  'notification.published': ['notificationId', 'kind', 'severity', 'entityId'],

  // Editorial review: the move and its states; the reason is free text.
  editorial_transition: ['collection', 'itemId', 'move', 'from', 'to', 'reviewerId', 'itemVersion'],

  // Releases
  'release.created': (data) => ({ releaseId: data.releaseId, status: data.status, atomicityMode: data.atomicityMode, itemCount: data.items.length }),
  'release.updated': (data) => ({ releaseId: data.releaseId, changed: changedKeys(data.changes), status: data.changes.status }),
  'release.items_added': (data) => ({ releaseId: data.releaseId, itemCount: data.items.length }),
  'release.items_removed': (data) => ({ releaseId: data.releaseId, itemCount: data.items.length }),
  'release.deleted': ['releaseId'],
  'release.published': (data) => ({
    releaseId: data.releaseId,
    status: data.status,
    trigger: data.trigger,
    published: data.outcomes.filter((outcome) => outcome.outcome === 'published').length,
    failed: data.outcomes.filter((outcome) => outcome.outcome === 'failed').length,
    skipped: data.outcomes.filter((outcome) => outcome.outcome === 'skipped').length,
  }),
  'release.reverted': (data) => ({ releaseId: data.releaseId, forced: data.forced, itemCount: data.items.length }),

  // Pages and files: a slug, a title or a file name may name a person.
  'page.created': ['pageId'],
  'page.updated': (data) => ({ pageId: data.pageId, changed: changedKeys(data.changes) }),
  'page.deleted': ['pageId'],
  'file.registered': ['fileId', 'type', 'size', 'source'],
  'file.updated': (data) => ({ fileId: data.fileId, changed: changedKeys(data.changes) }),
  'file.deleted': ['fileId'],
  'transform_preset.created': ['presetId', 'key'],
  'transform_preset.updated': (data) => ({ presetId: data.presetId, changed: changedKeys(data.changes) }),
  'transform_preset.deleted': ['presetId', 'key'],

  // Privacy: the consent's type and text version (not its source); a restriction's user, not its
  // reason; an erasure's counts, never its subject hash or reason.
  consent_granted: ['consentType', 'version'],
  consent_withdrawn: ['consentType', 'version'],
  'processing_restriction.applied': ['userId'],
  'processing_restriction.lifted': ['userId'],
  encryption_key_rotated: ['keyId', 'previousKeyId'],
  envelope_mode_changed: ['enabled'],
  encryption_values_resealed: ['operation', 'keyId', 'envelope', 'values'],
  decryption_failed: ['collection', 'itemId', 'field', 'keyId'],
  erasure_requested: (data) => ({ erasureId: data.erasureId, collection: data.collection, recordCount: data.recordIds.length }),
  erasure_confirmed: ['erasureId', 'confirmedBy'],
  data_erased: ['erasureId', 'collection', 'recordCount', 'shreddedValues'],

  // Email: ids, versions, changed keys, categories and counts; never an address, its hash, a subject
  // or a body. A suppression's reason is shown as its kind (an administrator's text is free text).
  'email_layout.created': ['layoutId', 'version'],
  'email_layout.updated': (data) => ({ layoutId: data.layoutId, version: data.version, changed: data.changed }),
  'email_layout.deleted': ['layoutId'],
  'email_template.created': (data) => ({ templateId: data.templateId, version: data.version, key: data.template.key, category: data.template.category }),
  'email_template.updated': (data) => ({ templateId: data.templateId, version: data.version, key: data.template.key, changed: data.changed }),
  'email_template.deleted': ['templateId', 'key'],
  email_suppressed: (data) => ({ reason: data.reason === 'bounce' || data.reason === 'unsubscribe' ? data.reason : 'manual' }),
  email_unsubscribed: ['method'],
  email_unsuppressed: () => ({}),
  'email_send.planned': (data) => ({
    sendId: data.sendId,
    category: data.category,
    test: data.test,
    templateKey: data.templateKey,
    templateVersion: data.templateVersion,
    recipientCount: data.recipients.length,
    skippedCount: data.skipped.suppressed + data.skipped.noConsent + data.skipped.restricted,
  }),
  // Flows: ids, versions, states, changed keys and step outcomes; never an input, an output or a token hash.
  'flow.created': (data) => ({ flowId: data.flowId, version: data.version, status: data.flow.status, trigger: data.flow.trigger }),
  'flow.updated': (data) => ({ flowId: data.flowId, version: data.version, status: data.flow.status, changed: data.changed }),
  'flow.deleted': ['flowId'],
  'flow.token_set': ['flowId'],
  'flow.token_cleared': ['flowId'],
  'flow.schedule_fired': ['flowId', 'dueAt', 'runId', 'nextRunAt'],
  'flow_run.queued': ['runId', 'flowId', 'trigger', 'depth', 'dryRun', 'replayOf'],
  'flow_run.started': ['runId', 'flowId'],
  // AI approvals (docs/ai-skills.md): ids, the skill, the decision and its code; never the call's input, the diff or a reason.
  'ai_approval.requested': (data) => ({
    approvalId: data.approvalId,
    skill: data.skill,
    collection: typeof data.input.collection === 'string' ? data.input.collection : undefined,
    agentId: data.agent.id,
    agentRole: data.agent.role,
    requestedBy: data.requester.userId,
    pinnedStreams: data.pins.length,
  }),
  'ai_approval.agent_reviewed': ['approvalId', 'decision', 'reviewerId', 'reviewerAgentId'],
  'ai_approval.approved': ['approvalId', 'approvedBy'],
  'ai_approval.rejected': ['approvalId', 'rejectedBy'],
  'ai_approval.executed': ['approvalId'],
  'ai_approval.failed': ['approvalId', 'code'],
  'ai_approval.staled': (data) => ({ approvalId: data.approvalId, movedStreams: data.movedStreams.length }),
  // Copilot conversations (docs/ai-copilot.md): ids, the owner, the role and what came of a chat; never a message's text or a title.
  'ai_conversation.exchanged': (data) => {
    const answer = data.messages.find((message) => message.role === 'assistant');
    return {
      conversationId: data.conversationId,
      userId: data.userId,
      started: data.title !== null,
      messages: data.messages.length,
      status: answer?.status ?? undefined,
      skill: answer?.skill ?? undefined,
      approvalId: answer?.approvalId ?? undefined,
      stagedId: answer?.stagedId ?? undefined,
      code: answer?.code ?? undefined,
    };
  },
  'ai_conversation.deleted': ['conversationId', 'userId'],
  'flow_run.step_recorded': ['runId', 'flowId', 'seq', 'nodeId', 'operation', 'status', 'durationMs', 'attempts'],
  'flow_run.finished': ['runId', 'flowId', 'status'],
  // View presets: ids, the collection, the scope and its owner, the layout, what changed; never a bookmark's name, a query or options.
  'preset.created': (data) => ({ presetId: data.presetId, collection: data.preset.collection, userId: data.preset.userId, roleId: data.preset.roleId, layout: data.preset.layout }),
  'preset.updated': (data) => ({ presetId: data.presetId, collection: data.preset.collection, userId: data.preset.userId, roleId: data.preset.roleId, changed: data.changed }),
  'preset.deleted': ['presetId'],
  // Insights: ids, the panel's type and what its query reads (a collection and an aggregate are schema names); never a name or a note.
  'dashboard.created': ['dashboardId'],
  'dashboard.updated': (data) => ({ dashboardId: data.dashboardId, changed: data.changed }),
  'dashboard.deleted': (data) => ({ dashboardId: data.dashboardId, panels: data.panelIds.length }),
  'dashboard.panel_added': (data) => ({ dashboardId: data.dashboardId, panelId: data.panelId, ...panelDetails(data.panel) }),
  'dashboard.panel_updated': (data) => ({ dashboardId: data.dashboardId, panelId: data.panelId, ...panelDetails(data.panel), changed: data.changed }),
  'dashboard.panel_removed': ['dashboardId', 'panelId'],
  // Translation memory: ids, languages, kinds and changed keys; never a text, a context or a source.
  'tm_entry.saved': ['entryId', 'sourceLang', 'targetLang', 'entrySource', 'quality'],
  'tm_entry.updated': (data) => ({ entryId: data.entryId, changed: changedKeys(data.changes) }),
  'tm_entry.deleted': ['entryId'],
  'tm_glossary_term.created': ['termId', 'sourceLang', 'targetLang', 'caseSensitive'],
  'tm_glossary_term.updated': (data) => ({ termId: data.termId, changed: changedKeys(data.changes) }),
  'tm_glossary_term.deleted': ['termId'],
  // Compliance reports: the period, filters' sizes, format, counts and the verdict; never a filter's text.
  'report.requested': (data) => ({
    reportId: data.reportId,
    from: data.params.from,
    to: data.params.to,
    format: data.params.format,
    collections: data.params.collections.length,
    actions: data.params.actions.length,
  }),
  'report.started': ['reportId', 'attempt', 'total'],
  'report.progressed': ['reportId', 'entries', 'total'],
  'report.completed': ['reportId', 'entries', 'bytes', 'sha256', 'valid', 'problems', 'keyId'],
  'report.failed': ['reportId'],
  // Agent governance (docs/agents.md): names, levels and counts; never a reason or a constitution's text.
  'agent_role.created': (data) => ({ name: data.name, skills: data.skills, collections: data.collections }),
  'agent_role.updated': (data) => ({ name: data.name, changed: data.changed, skills: data.skills, collections: data.collections }),
  'agent_role.deleted': (data) => ({ name: data.name }),
  'agent_autonomy.set': ['role', 'level', 'promotionId'],
  'agent_promotion.requested': ['promotionId', 'role', 'level', 'requestedBy'],
  'agent_promotion.decided': ['promotionId', 'role', 'level', 'decision', 'decidedBy'],
  'agent_constitution.draft_saved': (data) => ({ revision: data.revision, lines: data.text.split('\n').length }),
  'agent_constitution.compiled': (data) => ({ revision: data.revision, rules: data.rules.length }),
  'agent_constitution.activated': (data) => ({ version: data.version, revision: data.revision, rules: data.rules.length }),
  'agent_freeze.engaged': ['freezeId', 'scope', 'target'],
  'agent_freeze.lifted': ['freezeId', 'scope', 'target'],
  // Agent work (docs/agent-goals.md): ids, skills, statuses and codes; never a goal's instructions, a step's input or result, a reason or a summary.
  'agent_intent.created': ['intentId', 'role', 'createdBy'],
  'agent_intent.updated': (data) => ({ intentId: data.intentId, role: data.role, changed: data.changed }),
  'agent_intent.closed': ['intentId', 'closedBy'],
  'agent_goal.created': (data) => ({ goalId: data.goalId, role: data.role, intentId: data.intentId, execution: data.execution, steps: data.steps.map((step) => step.skill), requestedBy: data.requester.userId }),
  'agent_goal.decomposed': (data) => ({ goalId: data.goalId, steps: data.steps.map((step) => step.skill) }),
  'agent_goal.run_queued': ['goalId', 'runId'],
  'agent_goal.run_started': ['goalId', 'runId'],
  'agent_goal.step_recorded': ['goalId', 'runId', 'index', 'skill', 'status', 'approvalId', 'stagedId', 'code'],
  'agent_goal.run_finished': ['goalId', 'runId', 'status', 'code'],
  'agent_goal.settled': ['goalId', 'outcome', 'settledBy'],
  'agent_staged.staged': (data) => ({
    stagedId: data.stagedId,
    skill: data.skill,
    collection: typeof data.input.collection === 'string' ? data.input.collection : undefined,
    agentId: data.agent.id,
    agentRole: data.agent.role,
    requestedBy: data.requester.userId,
    runAfter: data.runAfter,
  }),
  'agent_staged.vetoed': ['stagedId', 'vetoedBy'],
  'agent_staged.started': ['stagedId'],
  'agent_staged.finished': ['stagedId', 'status', 'code'],
  'agent_incident.raised': ['incidentId', 'role', 'severity', 'intentId', 'raisedBy'],
  'agent_incident.resolved': ['incidentId', 'resolvedBy'],
  // Cloud sync: the target and which settings changed; never the credentials' reference or the name.
  'cloud_sync_pipeline.created': (data) => ({ pipelineId: data.pipelineId, target: data.target, collections: data.collections }),
  'cloud_sync_pipeline.updated': (data) => ({ pipelineId: data.pipelineId, changed: changedKeys(data.changes) }),
  'cloud_sync_pipeline.deleted': ['pipelineId'],
  // Extensions: the name, version, signer and capabilities (never the bundle, its code or its signature).
  'extension.installed': (data) => ({ extensionId: data.extensionId, name: data.name, version: data.version, keyId: data.keyId, official: data.official, sha256: data.sha256, capabilities: data.capabilities }),
  'extension.upgraded': (data) => ({
    extensionId: data.extensionId,
    name: data.name,
    version: data.version,
    previousVersion: data.previousVersion,
    keyId: data.keyId,
    official: data.official,
    sha256: data.sha256,
    capabilities: data.capabilities,
    granted: data.granted,
  }),
  'extension.enabled': ['extensionId'],
  'extension.disabled': ['extensionId'],
  'extension.capabilities_granted': (data) => ({ extensionId: data.extensionId, granted: data.granted }),
  // Git integrations: ids, the provider, the repository and what changed (never a token or secret).
  'git_integration.connected': ['integrationId', 'provider', 'repoFullName', 'authMethod'],
  'git_integration.updated': (data) => ({ integrationId: data.integrationId, changed: changedKeys(data.changes) }),
  'git_integration.secret_rotated': ['integrationId'],
  'git_integration.disconnected': ['integrationId'],
  'git_webhook.received': ['integrationId', 'deliveryId', 'event', 'action', 'pullRequest', 'outcome'],
  'git_integration.gitops_synced': (data) => ({
    integrationId: data.integrationId,
    commit: data.commit,
    created: data.created.length,
    updated: data.updated.length,
    closed: data.closed.length,
  }),
  git_ci_failed: ['integrationId', 'runId', 'commit', 'pullRequest', 'conclusion', 'incidentId'],
  'email_send.delivered': (data) => ({
    sendId: data.sendId,
    sent: data.results.filter((result) => result.status === 'sent').length,
    deferred: data.results.filter((result) => result.status === 'deferred').length,
    bounced: data.results.filter((result) => result.status === 'bounced').length,
    failed: data.results.filter((result) => result.status === 'failed').length,
  }),
};

/**
 * The details of an event's audit entry: what its type declares, and nothing else (absent keys left
 * out). The event's data is as its type's schema describes (the event store checked it).
 */
export function auditDetailsOf(event: DomainEvent): AuditDetails {
  const declaration = AUDIT_DETAILS[event.type] as Declaration<Record<string, unknown>> | undefined;
  if (!declaration) return {};
  const data = event.data as Record<string, unknown>;
  const picked: Record<string, unknown> =
    typeof declaration === 'function' ? declaration(data) : Object.fromEntries(declaration.map((key) => [key, data[key]]));
  return Object.fromEntries(Object.entries(picked).filter((entry): entry is [string, AuditDetailValue] => entry[1] !== undefined));
}
