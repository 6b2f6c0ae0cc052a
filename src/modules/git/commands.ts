// The git integration's commands (the command registry, docs/architecture.md): connect, update,
// rotate the webhook secret and disconnect an integration; refresh its pull requests; validate a pull
// request's manifest (a commit status posted to the repository); reconcile the intents file. Input
// errors are 400 VALIDATION_ERROR, the spec's code for integrations. Those that store or send a
// secret, write to the repository or change intents are dangerous (an agent's call waits for a person).
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { connectIntegration, disconnectIntegration, rotateWebhookSecret, updateIntegration } from './handlers.ts';
import { syncIntents } from './gitops.ts';
import { refreshPullRequests, validatePullRequest } from './pullRequests.ts';
import { assertPullNumber, createIntegrationBody, gitopsSyncBody, updateIntegrationBody } from './schemas.ts';

const integrationId = (id: string) => uuidOr404(id, 'Git integration');
const byId = z.object({ id: z.string() });

const create = defineCommand({
  name: 'git.create',
  description:
    'Connect a GitHub or GitLab repository to the site: its token is sealed and never shown again; the answer carries the webhook URL and secret (shown once) to set in the repository.',
  input: createIntegrationBody,
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => connectIntegration(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'git.update',
  description: "Change a git integration's display name, status (active or paused), sync config (preview sites, manifest and intents paths, branch) or token.",
  input: z.intersection(updateIntegrationBody, byId),
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input: { id, ...changes }, metadata }) => updateIntegration(context, siteId, integrationId(id), changes, metadata),
});

const rotateSecret = defineCommand({
  name: 'git.rotateSecret',
  description: 'Replace a git integration’s webhook secret: the old one stops verifying at once; the new one is answered once.',
  input: byId,
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => rotateWebhookSecret(context, siteId, integrationId(input.id), metadata),
});

const deleteCommand = defineCommand({
  name: 'git.delete',
  description: 'Disconnect a git integration: its token and webhook secret are destroyed, its caches cleared; preview sites it made stay until their pull requests close.',
  input: byId,
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => disconnectIntegration(context, siteId, integrationId(input.id), metadata),
});

const refresh = defineCommand({
  name: 'git.refreshPullRequests',
  description: "Read the repository's pull requests (the 500 most recently changed) from the provider into the cache.",
  input: byId,
  access: 'siteAdmin',
  dangerous: false,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input }) => refreshPullRequests(context, siteId, integrationId(input.id)),
});

const validate = defineCommand({
  name: 'git.validatePullRequest',
  description: "Validate a pull request's config manifest against the site (a dry run) and post the commit status svc/content-validation to its head commit.",
  input: z.object({ id: z.string(), number: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, metadata }) => validatePullRequest(context, siteId, integrationId(input.id), assertPullNumber(input.number), metadata),
});

const gitopsSync = defineCommand({
  name: 'git.gitopsSync',
  description: "Reconcile the repository's intents file (at a branch, tag or commit; default the sync config's branch) into the site's content intents.",
  input: z.intersection(gitopsSyncBody, byId),
  access: 'siteAdmin',
  dangerous: true,
  inputErrorCode: 'VALIDATION_ERROR',
  handler: (context, { siteId, input, principal, metadata }) =>
    syncIntents(context, siteId, integrationId(input.id), input.ref, principal.kind === 'user' ? principal.userId : null, metadata),
});

export const gitCommands = { create, update, rotateSecret, delete: deleteCommand, refresh, validate, gitopsSync };
