// Every area's manifest (./areaManifest.ts): its routes, read models, reactors, scheduled tasks and
// background parts, in the order the server registers them under /api/v1. The one home of
// background work: the server starts the areas' runtimes here, the scheduler runs their tasks
// (src/boot/scheduler.ts), and the daemon applies their async projections (projections/index.ts).
import type { FastifyInstance } from 'fastify';
import { apiKeysProjection } from '../../projections/apiKeysProjection.ts';
import { auditProjection } from '../../projections/auditProjection.ts';
import { cdcSubscriptionsProjection } from '../../projections/cdcSubscriptionsProjection.ts';
import { cloudSyncPipelinesProjection } from '../../projections/cloudSyncPipelinesProjection.ts';
import { changeFeedProjection } from '../../projections/changeFeedProjection.ts';
import { consentsProjection } from '../../projections/consentsProjection.ts';
import { editorialProjection } from '../../projections/editorialProjection.ts';
import { encryptionSettingsProjection } from '../../projections/encryptionSettingsProjection.ts';
import { erasureRequestsProjection } from '../../projections/erasureRequestsProjection.ts';
import { fieldAccessLogProjection } from '../../projections/fieldAccessLogProjection.ts';
import { filesProjection, transformPresetsProjection } from '../../projections/filesProjection.ts';
import { itemPinsProjection } from '../../projections/itemPinsProjection.ts';
import { itemsProjection } from '../../projections/itemsProjection.ts';
import { itemVersionsProjection } from '../../projections/itemVersionsProjection.ts';
import { pagesProjection } from '../../projections/pagesProjection.ts';
import { policiesProjection } from '../../projections/policiesProjection.ts';
import { pushSubscriptionsProjection } from '../../projections/pushSubscriptionsProjection.ts';
import { releasesProjection } from '../../projections/releasesProjection.ts';
import { restrictionsProjection } from '../../projections/restrictionsProjection.ts';
import { revisionsProjection } from '../../projections/revisionsProjection.ts';
import { rolesProjection } from '../../projections/rolesProjection.ts';
import { schemaProjection } from '../../projections/schemaProjection.ts';
import { searchProjection } from '../../projections/searchProjection.ts';
import { sessionsProjection } from '../../projections/sessionsProjection.ts';
import { settingsProjection } from '../../projections/settingsProjection.ts';
import { sitesProjection } from '../../projections/sitesProjection.ts';
import { subscriberAccessProjection } from '../../projections/subscriberAccessProjection.ts';
import { teamsProjection } from '../../projections/teamsProjection.ts';
import { trustedIssuersProjection } from '../../projections/trustedIssuersProjection.ts';
import { userIdentitiesProjection } from '../../projections/userIdentitiesProjection.ts';
import { usersProjection } from '../../projections/usersProjection.ts';
import { emailSendsProjection } from '../../projections/emailSendsProjection.ts';
import { emailSuppressionsProjection } from '../../projections/emailSuppressionsProjection.ts';
import { emailTemplatesProjection } from '../../projections/emailTemplatesProjection.ts';
import { flowRunsProjection } from '../../projections/flowRunsProjection.ts';
import { flowsProjection } from '../../projections/flowsProjection.ts';
import { createAccessTokenIssuer } from '../auth/accessTokens.ts';
import type { ServerDeps } from '../server/serverDeps.ts';
import { accountRoutes } from './account/routes.ts';
import { apiKeysRoutes } from './apiKeys/routes.ts';
import { defineArea, type AreaManifest, type ScheduledTask, type StartedRuntimes } from './areaManifest.ts';
import { runLogCheckpoints } from './audit/checkpointTask.ts';
import { auditRoutes } from './audit/routes.ts';
import { summarizeSignInFailures } from './auth/failedSignIns.ts';
import { authRoutes } from './auth/routes.ts';
import { startChangeFeedRuntime } from './cdc/changeFeedRuntime.ts';
import { startCloudSyncRuntime } from './cloudSync/cloudSyncRuntime.ts';
import { cloudSyncRuntimeCommands } from './cloudSync/commands.ts';
import { cloudSyncRoutes } from './cloudSync/routes.ts';
import { gitIntegrationsProjection } from '../../projections/gitIntegrationsProjection.ts';
import { gitRoutes } from './git/routes.ts';
import { extensionsProjection } from '../../projections/extensionsProjection.ts';
import { extensionRuntimeCommands } from './extensions/commands.ts';
import { openExtensionsRuntime } from './extensions/extensionsRuntime.ts';
import { extensionsRoutes } from './extensions/routes.ts';
import { subscriptionCommands } from './cdc/commands.ts';
import { pruneChangeFeeds } from './cdc/retention.ts';
import { cdcRoutes } from './cdc/routes.ts';
import { configRoutes } from './config/routes.ts';
import { startDeliveryRuntime } from './delivery/deliveryRuntime.ts';
import { deliveryRoutes } from './delivery/routes.ts';
import { editorialRoutes } from './editorial/routes.ts';
import { encryptionRoutes } from './encryption/routes.ts';
import { erasureRoutes } from './erasure/routes.ts';
import { fileStorageCommands } from './files/commands.ts';
import { createFilesRuntime } from './files/filesRuntime.ts';
import { mediaRoutes } from './files/mediaRoutes.ts';
import { filesRoutes } from './files/routes.ts';
import { graphqlRoutes } from './graphql/routes.ts';
import { instanceRoutes } from './instance/routes.ts';
import { issuersRoutes } from './issuers/routes.ts';
import { compactItemCounts } from './items/itemCounts.ts';
import { startItemReadCache } from './items/itemReadCache.ts';
import { pinRoutes } from './items/pinRoutes.ts';
import { revisionRoutes } from './items/revisionRoutes.ts';
import { itemsRoutes } from './items/routes.ts';
import { versionRoutes } from './items/versionRoutes.ts';
import { pagesRoutes } from './pages/routes.ts';
import { startPageviewService } from './pageviews/pageviewService.ts';
import { pageviewsRoutes } from './pageviews/routes.ts';
import { permissionsRoutes } from './permissions/routes.ts';
import { policiesRoutes } from './policies/routes.ts';
import { privacyAdminRoutes } from './privacy/adminRoutes.ts';
import { privacyRoutes } from './privacy/routes.ts';
import { pushSenderCommands } from './push/commands.ts';
import { startPushRuntime } from './push/pushRuntime.ts';
import { pushRoutes } from './push/routes.ts';
import { startRealtimeService } from './realtime/realtimeService.ts';
import { realtimeRoutes } from './realtime/routes.ts';
import { publishDueReleases } from './releases/scheduledReleases.ts';
import { releasesRoutes } from './releases/routes.ts';
import { rolesRoutes } from './roles/routes.ts';
import { schemaRoutes } from './schema/routes.ts';
import { searchRoutes } from './search/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { siteRoutes } from './site/routes.ts';
import { teamsRoutes } from './teams/routes.ts';
import { impersonationCommands } from './users/commands.ts';
import { usersRoutes } from './users/routes.ts';
import { templateUtilityRoutes } from './utils/templateRoutes.ts';
import { metricsRoutes } from './utils/metricsRoutes.ts';
import { utilsRoutes } from './utils/routes.ts';
import { editorialItemHook } from './editorial/editorialHooks.ts';
import { emailRuntimeCommands } from './email/commands.ts';
import { flowRunCommands } from './flows/commands.ts';
import { maintainFlowRuns } from './flows/flowRetention.ts';
import { fireDueSchedules } from './flows/flowSchedule.ts';
import { startFlowsRuntime } from './flows/flowsRuntime.ts';
import { flowsRoutes } from './flows/routes.ts';
import { flowWebhookRoutes } from './flows/webhookRoutes.ts';
import { startEmailRuntime } from './email/emailRuntime.ts';
import { emailRoutes } from './email/routes.ts';
import { unsubscribeRoutes } from './email/unsubscribeRoutes.ts';
import { presetsProjection } from '../../projections/presetsProjection.ts';
import { presetsRoutes } from './presets/routes.ts';
import { dashboardsProjection } from '../../projections/dashboardsProjection.ts';
import { startInsightsRuntime } from './insights/insightsRuntime.ts';
import { insightsRoutes } from './insights/routes.ts';
import { translationMemoryProjection } from '../../projections/translationMemoryProjection.ts';
import { translationRuntimeCommands } from './translation/commands.ts';
import { translationRoutes } from './translation/routes.ts';
import { startTranslationRuntime } from './translation/translationRuntime.ts';
import { complianceReportsProjection } from '../../projections/complianceReportsProjection.ts';
import { reportCommands } from './reports/commands.ts';
import { startReportsRuntime } from './reports/reportsRuntime.ts';
import { reportsRoutes } from './reports/routes.ts';
import { aiApprovalsProjection } from '../../projections/aiApprovalsProjection.ts';
import { approvalRoutes } from './ai/approvalRoutes.ts';
import { chatRoutes } from './ai/chatRoutes.ts';
import { aiConversationsProjection } from '../../projections/aiConversationsProjection.ts';
import { mcpRoutes } from './ai/mcpRoutes.ts';
import { agentAutonomyProjection } from '../../projections/agentAutonomyProjection.ts';
import { agentConstitutionProjection } from '../../projections/agentConstitutionProjection.ts';
import { agentFreezesProjection } from '../../projections/agentFreezesProjection.ts';
import { agentRolesProjection } from '../../projections/agentRolesProjection.ts';
import { agentAutonomyRoutes } from './agents/autonomyRoutes.ts';
import { agentConstitutionRoutes } from './agents/constitutionRoutes.ts';
import { agentKillSwitchRoutes } from './agents/killSwitchRoutes.ts';
import { agentRolesRoutes } from './agents/rolesRoutes.ts';
import { agentGoalsProjection } from '../../projections/agentGoalsProjection.ts';
import { agentIncidentsProjection } from '../../projections/agentIncidentsProjection.ts';
import { agentIntentsProjection } from '../../projections/agentIntentsProjection.ts';
import { agentStagedActionsProjection } from '../../projections/agentStagedActionsProjection.ts';
import { startAgentWorkRuntime } from './agents/agentWorkRuntime.ts';
import { goalCommands } from './agents/goalsCommands.ts';
import { agentGoalsRoutes } from './agents/goalsRoutes.ts';
import { agentIncidentsRoutes } from './agents/incidentsRoutes.ts';
import { agentIntentsRoutes } from './agents/intentsRoutes.ts';
import { agentStagedRoutes } from './agents/stagedRoutes.ts';
import { runDueStagedActions } from './agents/stagedTask.ts';

const realtimeArea = defineArea({
  name: 'realtime',
  routes: [realtimeRoutes],
  reactors: [
    {
      name: 'realtime-log-tailer',
      cursor: 'the log position it sent through; with REDIS_URL kept in Redis for the next leader (frames are signals, sent at most twice)',
      leader: "with REDIS_URL the lock 'realtime-tailer'; without it each instance tails for its own sessions",
    },
  ],
  // One realtime service per server: the WebSocket routes and GraphQL subscriptions share its fan-out.
  runtime: { start: startRealtimeService, stop: (realtime) => realtime.close() },
});

const cdcArea = defineArea({
  name: 'cdc',
  routes: [cdcRoutes],
  projections: [cdcSubscriptionsProjection, changeFeedProjection],
  reactors: [
    {
      name: 'webhooks',
      cursor: 'cdc_webhook_state.delivered_seq per subscription, advanced in the transaction that records the delivery',
      leader: "the job queue 'cdc-webhooks': one job per subscription key, on whichever instance takes it",
    },
    {
      name: 'nats-sink',
      cursor: 'cdc_sink_state.delivered_seq (with broker_position) per nats subscription, advanced after JetStream acknowledged the batch',
      leader: "the job queue 'cdc-sinks': one job per subscription key, on whichever instance takes it",
    },
  ],
  scheduledTasks: [{ name: 'cdc-retention', run: pruneChangeFeeds }],
  runtime: { start: startChangeFeedRuntime, stop: (runtime) => runtime.stop() },
  commands: (runtime) => Object.values(subscriptionCommands(runtime)),
});

const emailArea = defineArea({
  name: 'email',
  routes: [emailRoutes, unsubscribeRoutes],
  projections: [emailTemplatesProjection, emailSuppressionsProjection, emailSendsProjection],
  reactors: [
    {
      name: 'email-send',
      cursor: "each recipient's status in email_send_recipients, recorded (email_send.delivered) after the relay answers; a retry skips the sent and bounced",
      leader: "the job queue 'email-send': one job per batch of a marketing send, on whichever instance takes it",
    },
  ],
  // The keys over addresses, the pooled SMTP mailer and the send queue with its worker.
  runtime: { start: startEmailRuntime, stop: (email) => email.stop() },
  commands: (email) => Object.values(emailRuntimeCommands(email)),
});

const flowsArea = defineArea({
  name: 'flows',
  routes: [flowsRoutes, flowWebhookRoutes],
  projections: [flowsProjection, flowRunsProjection],
  reactors: [
    {
      name: 'flow-trigger',
      cursor: 'flow_trigger_cursor, moved after the runs it queued commit; a run id is derived from its event and flow, so a batch read twice queues nothing twice',
      leader: "the lock 'flow-trigger'",
    },
    {
      name: 'flow-run',
      cursor: 'each run’s stream (queued, started, its steps, finished): a job that runs again finds its run started and does nothing',
      leader: "the job queue 'flow-run': one job per run, on whichever instance takes it, at most SVC_FLOW_SITE_CONCURRENCY per site",
    },
  ],
  scheduledTasks: [
    { name: 'flows-schedule', run: fireDueSchedules },
    { name: 'flow-runs', run: maintainFlowRuns },
  ],
  // The request operation's guarded HTTP client, the run queue and its worker, the event reactor, the dispatcher.
  runtime: { start: startFlowsRuntime, stop: (flows) => flows.stop() },
  commands: (flows) => Object.values(flowRunCommands(flows)),
});

/** Every area, in the order its routes are registered (and its runtime started). */
export const areas: readonly AreaManifest<unknown>[] = [
  defineArea({ name: 'utils', routes: [utilsRoutes, templateUtilityRoutes, metricsRoutes] }),
  defineArea({ name: 'instance', routes: [instanceRoutes] }),
  defineArea({
    name: 'auth',
    routes: [authRoutes],
    projections: [sessionsProjection],
    scheduledTasks: [{ name: 'sign-in-failures', run: summarizeSignInFailures }],
  }),
  defineArea({ name: 'account', routes: [accountRoutes] }),
  defineArea({ name: 'privacy', routes: [privacyRoutes, privacyAdminRoutes], projections: [consentsProjection, restrictionsProjection, fieldAccessLogProjection] }),
  defineArea({ name: 'encryption', routes: [encryptionRoutes], projections: [encryptionSettingsProjection] }),
  defineArea({ name: 'erasure', routes: [erasureRoutes], projections: [erasureRequestsProjection] }),
  defineArea({
    name: 'users',
    routes: [usersRoutes],
    projections: [usersProjection, subscriberAccessProjection],
    // The access-token issuer impersonation signs with (the server's own is built the same way, in src/server/app.ts).
    runtime: { start: (context) => createAccessTokenIssuer(context.config.SVC_SECRET, context.config.SVC_ACCESS_TOKEN_TTL), stop: async () => {} },
    commands: (tokens) => Object.values(impersonationCommands(tokens)),
  }),
  defineArea({ name: 'teams', routes: [teamsRoutes], projections: [teamsProjection] }),
  defineArea({ name: 'apiKeys', routes: [apiKeysRoutes], projections: [apiKeysProjection] }),
  defineArea({ name: 'issuers', routes: [issuersRoutes], projections: [trustedIssuersProjection, userIdentitiesProjection] }),
  defineArea({ name: 'roles', routes: [rolesRoutes], projections: [rolesProjection] }),
  defineArea({ name: 'policies', routes: [policiesRoutes], projections: [policiesProjection] }),
  defineArea({ name: 'permissions', routes: [permissionsRoutes] }),
  defineArea({
    name: 'audit',
    routes: [auditRoutes],
    projections: [auditProjection],
    scheduledTasks: [{ name: 'log-checkpoints', run: runLogCheckpoints }],
  }),
  defineArea({
    name: 'schema',
    routes: [schemaRoutes],
    projections: [schemaProjection],
    reactors: [
      {
        name: 'field-index-builder',
        cursor: 'the state of each item_field_indexes row, recorded after its DDL (src/runtime/fieldIndexBuilder.ts, started at boot)',
        leader: "the lock 'field-index-builder', on the connection that runs the DDL",
      },
    ],
  }),
  defineArea({
    name: 'items',
    routes: [itemsRoutes, revisionRoutes, versionRoutes, pinRoutes],
    projections: [itemsProjection, revisionsProjection, itemVersionsProjection, itemPinsProjection],
    scheduledTasks: [{ name: 'item-counts', run: compactItemCounts }],
    runtime: { start: startItemReadCache, stop: async (reads) => reads.close() },
  }),
  defineArea({ name: 'search', routes: [searchRoutes], projections: [searchProjection] }),
  cdcArea,
  realtimeArea,
  defineArea({
    name: 'push',
    routes: [pushRoutes],
    projections: [pushSubscriptionsProjection],
    runtime: { start: startPushRuntime, stop: async (push) => push.close() },
    commands: (push) => Object.values(pushSenderCommands(push)),
  }),
  defineArea({ name: 'site', routes: [siteRoutes], projections: [sitesProjection] }),
  defineArea({ name: 'settings', routes: [settingsRoutes], projections: [settingsProjection] }),
  defineArea({ name: 'config', routes: [configRoutes] }),
  defineArea({ name: 'editorial', routes: [editorialRoutes], projections: [editorialProjection], itemHooks: [editorialItemHook] }),
  defineArea({
    name: 'releases',
    routes: [releasesRoutes],
    projections: [releasesProjection],
    scheduledTasks: [{ name: 'releases', run: publishDueReleases }],
  }),
  defineArea({ name: 'pages', routes: [pagesRoutes], projections: [pagesProjection] }),
  defineArea({ name: 'graphql', routes: [(app, deps, _runtime, runtimes) => graphqlRoutes(app, deps, runtimes.of(realtimeArea))] }),
  defineArea({ name: 'pageviews', routes: [pageviewsRoutes], runtime: { start: startPageviewService, stop: (pageviews) => pageviews.close() } }),
  defineArea({ name: 'delivery', routes: [deliveryRoutes], runtime: { start: startDeliveryRuntime, stop: (delivery) => delivery.close() } }),
  defineArea({
    name: 'files',
    routes: [filesRoutes, mediaRoutes],
    projections: [filesProjection, transformPresetsProjection],
    // One object storage and image transformer per server, for the JSON routes and the raw-bytes ones.
    runtime: { start: createFilesRuntime, stop: async (files) => files.close() },
    commands: (files) => Object.values(fileStorageCommands(files)),
  }),
  emailArea,
  flowsArea,
  defineArea({ name: 'presets', routes: [presetsRoutes], projections: [presetsProjection] }),
  defineArea({
    name: 'insights',
    routes: [insightsRoutes],
    projections: [dashboardsProjection],
    // The panel answer cache, and its item-write hook (after-commit: a write drops its collection's
    // answers), registered by the runtime because it closes over this server's cache (insightsRuntime.ts).
    runtime: { start: startInsightsRuntime, stop: (insights) => insights.stop() },
  }),
  defineArea({
    name: 'translation',
    routes: [translationRoutes],
    projections: [translationMemoryProjection],
    // The provider client SVC_TRANSLATE_* configures (or none), for the translate pipeline.
    runtime: { start: startTranslationRuntime, stop: async () => {} },
    commands: (translation) => Object.values(translationRuntimeCommands(translation)),
  }),
  defineArea({
    name: 'reports',
    routes: [reportsRoutes],
    projections: [complianceReportsProjection],
    reactors: [
      {
        name: 'compliance-report',
        cursor: "each report's stream (requested, started, progressed, completed or failed): a job that runs again finds its report finished and does nothing, or running and starts it over",
        leader: "the job queue 'compliance-report': one job per report, on whichever instance takes it, one at a time per instance",
      },
    ],
    // The object storage the reports are streamed to, and the report queue with its worker.
    runtime: { start: startReportsRuntime, stop: (reports) => reports.stop() },
    commands: (reports) => Object.values(reportCommands(reports)),
  }),
  // Skills and approvals (docs/ai-skills.md): dangerous skill calls waiting for a person, and their decisions.
  defineArea({ name: 'aiApprovals', routes: [approvalRoutes], projections: [aiApprovalsProjection] }),
  // The copilot (docs/ai-copilot.md): POST /ai/chat through the provider port and the skill runner, and each user's conversations.
  defineArea({ name: 'aiChat', routes: [chatRoutes], projections: [aiConversationsProjection] }),
  // The MCP endpoint (docs/mcp.md): the skills as MCP tools, behind SVC_MCP_ENABLED.
  defineArea({ name: 'mcp', routes: [mcpRoutes] }),
  defineArea({
    name: 'agents',
    // Agent governance (docs/agents.md): roles, autonomy and promotions, the constitution, the kill switch.
    routes: [agentRolesRoutes, agentAutonomyRoutes, agentConstitutionRoutes, agentKillSwitchRoutes],
    projections: [agentRolesProjection, agentAutonomyProjection, agentConstitutionProjection, agentFreezesProjection],
  }),
  defineArea({
    name: 'agentWork',
    // The agents' work (docs/agent-goals.md): intents, goals (sync, or async on the goal queue), staged actions, incidents, web push of notifications.
    routes: [agentIntentsRoutes, agentGoalsRoutes, agentStagedRoutes, agentIncidentsRoutes],
    projections: [agentIntentsProjection, agentGoalsProjection, agentStagedActionsProjection, agentIncidentsProjection],
    reactors: [
      {
        name: 'agent-goal-run',
        cursor: "each goal's stream (run queued, started, its steps, finished): a job that runs again finds its run started and does nothing",
        leader: "the job queue 'agent-goal-run': one job per run, on whichever instance takes it",
      },
      {
        name: 'agent-push',
        cursor: 'agent_push_cursor, moved after a batch is pushed; each notification event is claimed in agent_push_deliveries before it is sent, so none is pushed twice',
        leader: "the lock 'agent-push' (only with VAPID keys configured)",
      },
    ],
    scheduledTasks: [{ name: 'agent-staged', run: runDueStagedActions }],
    runtime: { start: startAgentWorkRuntime, stop: (work) => work.stop() },
    commands: (work) => Object.values(goalCommands(work)),
  }),
  defineArea({
    name: 'cloudSync',
    // Cloud-sync pipelines (docs/integrations.md): item writes pushed to a document database or a realtime database.
    routes: [cloudSyncRoutes],
    projections: [cloudSyncPipelinesProjection],
    reactors: [
      {
        name: 'cloud-sync',
        cursor: "cloud_sync_state.synced_seq per pipeline (its site's change-feed sequence), moved in the transaction that records the attempt; pushes write whole documents by item id, so an entry pushed again changes nothing",
        leader: "the lock 'cloud-sync'",
      },
    ],
    runtime: { start: startCloudSyncRuntime, stop: (sync) => sync.stop() },
    commands: (sync) => Object.values(cloudSyncRuntimeCommands(sync)),
  }),
  defineArea({
    name: 'git',
    // Git integrations (docs/integrations.md): pull requests, CI, manifest validation, preview sites, gitops and provenance.
    routes: [gitRoutes],
    projections: [gitIntegrationsProjection],
  }),
  defineArea({
    name: 'extensions',
    // Signed extension bundles (docs/extensions.md): their code runs only in the sandbox's child processes, never in this one.
    routes: [extensionsRoutes],
    projections: [extensionsProjection],
    runtime: { start: openExtensionsRuntime, stop: (extensions) => extensions.stop() },
    commands: (extensions) => Object.values(extensionRuntimeCommands(extensions)),
  }),
];

/** The order a scheduler tick runs the areas' tasks in: due releases first (their time was promised), then upkeep. */
const TICK_ORDER = ['releases', 'flows', 'cdc', 'items', 'audit', 'auth'];

/** Every area's scheduled tasks, in tick order (areas not in TICK_ORDER after those that are). */
export const scheduledTasks: readonly ScheduledTask[] = [...areas]
  .filter((area) => area.scheduledTasks)
  .sort((a, b) => tickRank(a.name) - tickRank(b.name))
  .flatMap((area) => area.scheduledTasks ?? []);

function tickRank(name: string): number {
  const rank = TICK_ORDER.indexOf(name);
  return rank === -1 ? TICK_ORDER.length : rank;
}

/**
 * Starts every area's runtime (stopped with the context, in reverse order) and registers the commands
 * bound to it, then registers every area's routes, each in a scope of its own.
 */
export async function registerModules(api: FastifyInstance, deps: ServerDeps): Promise<void> {
  const { context } = deps;
  const started = new Map<AreaManifest<unknown>, unknown>();
  for (const area of areas) {
    if (!area.runtime) continue;
    const { runtime } = area;
    const value = await runtime.start(context);
    started.set(area, value);
    context.onClose(() => runtime.stop(value));
    if (area.commands) context.commands.register(area.name, area.commands(value));
  }
  const runtimes: StartedRuntimes = {
    of<Runtime>(area: AreaManifest<Runtime>): Runtime {
      if (!started.has(area as AreaManifest<unknown>)) throw new Error(`the ${area.name} area has no runtime started`);
      return started.get(area as AreaManifest<unknown>) as Runtime;
    },
  };
  for (const area of areas) {
    for (const routes of area.routes) await api.register(async (scope) => routes(scope, deps, started.get(area), runtimes));
  }
}
