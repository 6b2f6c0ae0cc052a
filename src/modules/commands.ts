// Every area's commands, gathered for the command registry built at boot (src/boot/boot.ts;
// docs/architecture.md, "The command registry"). Each area lists its own in its `commands.ts`.
import type { AnyAppCommand } from '../runtime/appCommand.ts';
import { accountCommands } from './account/commands.ts';
import { autonomyCommands } from './agents/autonomyCommands.ts';
import { constitutionCommands } from './agents/constitutionCommands.ts';
import { killSwitchCommands } from './agents/killSwitchCommands.ts';
import { agentRoleCommands } from './agents/rolesCommands.ts';
import { agentWorkCommands } from './agents/agentWorkCommands.ts';
import { querySkillCommands } from './ai/querySkills.ts';
import { approvalCommands } from './ai/approvalCommands.ts';
import { conversationCommands } from './ai/conversationCommands.ts';
import { apiKeyCommands } from './apiKeys/commands.ts';
import { configCommands } from './config/commands.ts';
import { cdcCommands } from './cdc/commands.ts';
import { cloudSyncCommands } from './cloudSync/commands.ts';
import { gitCommands } from './git/commands.ts';
import { extensionCommands } from './extensions/commands.ts';
import { encryptionCommands } from './encryption/commands.ts';
import { editorialCommands } from './editorial/commands.ts';
import { emailCommands } from './email/commands.ts';
import { flowCommands } from './flows/commands.ts';
import { erasureCommands } from './erasure/commands.ts';
import { fileCommands } from './files/commands.ts';
import { issuerCommands } from './issuers/commands.ts';
import { itemCommands } from './items/commands.ts';
import { pageCommands } from './pages/commands.ts';
import { policyCommands } from './policies/commands.ts';
import { privacyCommands } from './privacy/commands.ts';
import { pushCommands } from './push/commands.ts';
import { releaseCommands } from './releases/commands.ts';
import { presetCommands } from './presets/commands.ts';
import { roleCommands } from './roles/commands.ts';
import { schemaCommands } from './schema/commands.ts';
import { settingCommands } from './settings/commands.ts';
import { siteCommands } from './site/commands.ts';
import { insightsCommands } from './insights/commands.ts';
import { teamCommands } from './teams/commands.ts';
import { translationCommands } from './translation/commands.ts';
import { userCommands } from './users/commands.ts';

export const areaCommands: readonly AnyAppCommand[] = [
  ...Object.values(itemCommands),
  ...Object.values(releaseCommands),
  ...Object.values(userCommands),
  ...Object.values(teamCommands),
  ...Object.values(roleCommands),
  ...Object.values(apiKeyCommands),
  ...Object.values(erasureCommands),
  ...Object.values(pageCommands),
  ...Object.values(issuerCommands),
  ...Object.values(pushCommands),
  ...Object.values(privacyCommands),
  ...Object.values(encryptionCommands),
  ...Object.values(accountCommands),
  ...Object.values(fileCommands),
  ...Object.values(cdcCommands),
  ...Object.values(cloudSyncCommands),
  ...Object.values(gitCommands),
  ...Object.values(extensionCommands),
  ...Object.values(policyCommands),
  ...Object.values(settingCommands),
  ...Object.values(siteCommands),
  ...Object.values(schemaCommands),
  ...Object.values(configCommands),
  ...Object.values(editorialCommands),
  ...Object.values(emailCommands),
  ...Object.values(flowCommands),
  ...Object.values(presetCommands),
  ...Object.values(insightsCommands),
  ...Object.values(translationCommands),
  ...Object.values(agentRoleCommands),
  ...Object.values(autonomyCommands),
  ...Object.values(constitutionCommands),
  ...Object.values(killSwitchCommands),
  ...Object.values(agentWorkCommands),
  ...Object.values(querySkillCommands),
  ...Object.values(approvalCommands),
  ...Object.values(conversationCommands),
];
