// Every read model of the service. Inline ones run in the append's transaction, in this order.
import { agentAutonomyProjection } from './agentAutonomyProjection.ts';
import { agentConstitutionProjection } from './agentConstitutionProjection.ts';
import { agentFreezesProjection } from './agentFreezesProjection.ts';
import { agentGoalsProjection } from './agentGoalsProjection.ts';
import { agentIncidentsProjection } from './agentIncidentsProjection.ts';
import { agentIntentsProjection } from './agentIntentsProjection.ts';
import { agentStagedActionsProjection } from './agentStagedActionsProjection.ts';
import { agentRolesProjection } from './agentRolesProjection.ts';
import { cloudSyncPipelinesProjection } from './cloudSyncPipelinesProjection.ts';
import { gitIntegrationsProjection } from './gitIntegrationsProjection.ts';
import { extensionsProjection } from './extensionsProjection.ts';
import { apiKeysProjection } from './apiKeysProjection.ts';
import { auditProjection } from './auditProjection.ts';
import { cdcSubscriptionsProjection } from './cdcSubscriptionsProjection.ts';
import { complianceReportsProjection } from './complianceReportsProjection.ts';
import { changeFeedProjection } from './changeFeedProjection.ts';
import { consentsProjection } from './consentsProjection.ts';
import { dashboardsProjection } from './dashboardsProjection.ts';
import { encryptionSettingsProjection } from './encryptionSettingsProjection.ts';
import { erasureRequestsProjection } from './erasureRequestsProjection.ts';
import { editorialProjection } from './editorialProjection.ts';
import { fieldAccessLogProjection } from './fieldAccessLogProjection.ts';
import { itemPinsProjection } from './itemPinsProjection.ts';
import { itemVersionsProjection } from './itemVersionsProjection.ts';
import { itemsProjection } from './itemsProjection.ts';
import { filesProjection, transformPresetsProjection } from './filesProjection.ts';
import { pagesProjection } from './pagesProjection.ts';
import { revisionsProjection } from './revisionsProjection.ts';
import { schemaProjection } from './schemaProjection.ts';
import { searchProjection } from './searchProjection.ts';
import type { Projection } from './projection.ts';
import { policiesProjection } from './policiesProjection.ts';
import { pushSubscriptionsProjection } from './pushSubscriptionsProjection.ts';
import { releasesProjection } from './releasesProjection.ts';
import { restrictionsProjection } from './restrictionsProjection.ts';
import { rolesProjection } from './rolesProjection.ts';
import { sessionsProjection } from './sessionsProjection.ts';
import { emailSendsProjection } from './emailSendsProjection.ts';
import { emailSuppressionsProjection } from './emailSuppressionsProjection.ts';
import { emailTemplatesProjection } from './emailTemplatesProjection.ts';
import { flowRunsProjection } from './flowRunsProjection.ts';
import { flowsProjection } from './flowsProjection.ts';
import { aiApprovalsProjection } from './aiApprovalsProjection.ts';
import { aiConversationsProjection } from './aiConversationsProjection.ts';
import { settingsProjection } from './settingsProjection.ts';
import { presetsProjection } from './presetsProjection.ts';
import { sitesProjection } from './sitesProjection.ts';
import { subscriberAccessProjection } from './subscriberAccessProjection.ts';
import { teamsProjection } from './teamsProjection.ts';
import { trustedIssuersProjection } from './trustedIssuersProjection.ts';
import { translationMemoryProjection } from './translationMemoryProjection.ts';
import { userIdentitiesProjection } from './userIdentitiesProjection.ts';
import { usersProjection } from './usersProjection.ts';

export const projections: readonly Projection[] = [
  sitesProjection,
  settingsProjection,
  rolesProjection,
  usersProjection,
  sessionsProjection,
  teamsProjection,
  apiKeysProjection,
  trustedIssuersProjection,
  userIdentitiesProjection,
  subscriberAccessProjection,
  policiesProjection,
  schemaProjection,
  itemsProjection,
  revisionsProjection,
  itemVersionsProjection,
  itemPinsProjection,
  cdcSubscriptionsProjection,
  pushSubscriptionsProjection,
  releasesProjection,
  editorialProjection,
  pagesProjection,
  filesProjection,
  transformPresetsProjection,
  consentsProjection,
  restrictionsProjection,
  encryptionSettingsProjection,
  erasureRequestsProjection,
  emailTemplatesProjection,
  emailSuppressionsProjection,
  emailSendsProjection,
  flowsProjection,
  flowRunsProjection,
  presetsProjection,
  dashboardsProjection,
  complianceReportsProjection,
  translationMemoryProjection,
  aiApprovalsProjection,
  aiConversationsProjection,
  agentRolesProjection,
  agentAutonomyProjection,
  agentConstitutionProjection,
  agentFreezesProjection,
  agentIntentsProjection,
  agentGoalsProjection,
  agentStagedActionsProjection,
  agentIncidentsProjection,
  cloudSyncPipelinesProjection,
  gitIntegrationsProjection,
  extensionsProjection,
  // Async ones are applied by the daemon in this order: the change feed first, as realtime-ish consumers wait on it.
  changeFeedProjection,
  searchProjection,
  fieldAccessLogProjection,
  auditProjection,
];

export function findProjection(name: string): Projection | undefined {
  return projections.find((projection) => projection.name === name);
}
