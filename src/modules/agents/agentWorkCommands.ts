// The agent work's commands (the command registry, docs/architecture.md): intents, agent incidents
// (`agents.raiseIncident`: the integrations area raises git-sync incidents through it) and vetoing
// staged actions, settling goals. Creating and decomposing goals need the area's runtime (its job queue): goalsCommands.ts.
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { closeIntentBody, createIntentBody, raiseIncidentBody, resolveIncidentBody, settleBody, updateIntentBody, vetoBody } from './agentWorkSchemas.ts';
import { settleGoal } from './goals.ts';
import { raiseIncident, resolveIncident } from './incidents.ts';
import { closeIntent, createIntent, updateIntent } from './intents.ts';
import { vetoStaged } from './stagedActions.ts';

const id = z.string().max(100);

const createIntentCommand = defineCommand({
  name: 'agents.createIntent',
  description: 'Create an intent: what a group of goals is for, with the agent role that serves it (kill-switch scope `intent`).',
  input: createIntentBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => createIntent(context, siteId, userPrincipal(principal), input, metadata),
});

const updateIntentCommand = defineCommand({
  name: 'agents.updateIntent',
  description: "Change an open intent's title, description or role (its creator or a site administrator).",
  input: updateIntentBody.safeExtend({ id }),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, principal, input, metadata }) {
    const { id: intentId, ...changes } = input;
    return updateIntent(context, siteId, userPrincipal(principal), intentId, changes, metadata);
  },
});

const closeIntentCommand = defineCommand({
  name: 'agents.closeIntent',
  description: 'Close an intent, once: it takes no new goal (its creator or a site administrator).',
  input: closeIntentBody.safeExtend({ id }),
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => closeIntent(context, siteId, userPrincipal(principal), input.id, input.reason ?? null, metadata),
});

const raiseIncidentCommand = defineCommand({
  name: 'agents.raiseIncident',
  description: 'Record an agent incident with the role that raised it (git-sync, an agent role) and tell the site (a notification).',
  input: raiseIncidentBody,
  access: 'bearer',
  // It reaches every session and browser of the site: for agents' keys and integrations given it (administrators hold all).
  capability: 'agents:incident',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => raiseIncident(context, siteId, userPrincipal(principal), input, metadata),
});

const resolveIncidentCommand = defineCommand({
  name: 'agents.resolveIncident',
  description: 'Resolve an open agent incident, once (site administrators).',
  input: resolveIncidentBody.safeExtend({ id }),
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => resolveIncident(context, siteId, userPrincipal(principal), input.id, input.note ?? null, metadata),
});

const vetoStagedCommand = defineCommand({
  name: 'agents.vetoStaged',
  description: 'Veto a staged agent action before its window ends: it never runs (a person: the one it acts for, or a site administrator).',
  input: vetoBody.safeExtend({ id }),
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => vetoStaged(context, siteId, principal, input.id, input.reason ?? null, metadata),
});

const settleGoalCommand = defineCommand({
  name: 'agents.settleGoal',
  description: 'Close a goal with its outcome (succeeded, failed, abandoned), once; a queued run of it then does not run.',
  input: settleBody.safeExtend({ id }),
  access: 'bearer',
  dangerous: false,
  async handler(context, { siteId, principal, input, metadata }) {
    const { id: goalId, ...body } = input;
    return settleGoal(context, siteId, userPrincipal(principal), goalId, body, metadata);
  },
});

export const agentWorkCommands = {
  settleGoal: settleGoalCommand,
  createIntent: createIntentCommand,
  updateIntent: updateIntentCommand,
  closeIntent: closeIntentCommand,
  raiseIncident: raiseIncidentCommand,
  resolveIncident: resolveIncidentCommand,
  vetoStaged: vetoStagedCommand,
};
