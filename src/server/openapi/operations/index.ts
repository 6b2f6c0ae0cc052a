// Every documented operation, gathered from one file per group of areas (keys: `METHOD /path` under
// /api/v1, parameters as `{name}`). A route without an entry fails test/server/openapiDocument.e2e.spec.ts.
import type { OperationCatalogue } from '../operationEntry.ts';
import { agentGovernanceOperations } from './agentGovernance.ts';
import { agentWorkOperations } from './agentWork.ts';
import { aiApprovalOperations } from './aiApprovals.ts';
import { aiChatOperations } from './aiChat.ts';
import { authOperations } from './auth.ts';
import { contentOperations } from './content.ts';
import { emailOperations } from './email.ts';
import { extensionOperations } from './extensions.ts';
import { flowOperationsCatalogue } from './flows.ts';
import { flowsUtilityOperations } from './flowsUtilities.ts';
import { identityOperations } from './identity.ts';
import { insightsOperations } from './insights.ts';
import { gitOperations } from './git.ts';
import { integrationOperations } from './integrations.ts';
import { mcpOperations } from './mcp.ts';
import { platformOperations } from './platform.ts';
import { presetOperations } from './presets.ts';
import { privacyOperations } from './privacy.ts';
import { publishingOperations } from './publishing.ts';
import { reportOperations } from './reports.ts';
import { translationOperations } from './translation.ts';

export const operationCatalogue: OperationCatalogue = {
  ...authOperations,
  ...privacyOperations,
  ...identityOperations,
  ...contentOperations,
  ...platformOperations,
  ...publishingOperations,
  ...emailOperations,
  ...flowOperationsCatalogue,
  ...flowsUtilityOperations,
  ...presetOperations,
  ...insightsOperations,
  ...reportOperations,
  ...translationOperations,
  ...aiApprovalOperations,
  ...aiChatOperations,
  ...agentGovernanceOperations,
  ...agentWorkOperations,
  ...mcpOperations,
  ...integrationOperations,
  ...gitOperations,
  ...extensionOperations,
};
