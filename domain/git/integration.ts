// A git integration: a site's link to one repository of a hosting provider (docs/integrations.md).
// The decider keeps its settings and refuses changes to a disconnected one; the provider and the
// repository never change (another repository is another integration). Deliveries, gitops syncs and
// CI failures are recorded on its stream, so they too stop once it is disconnected.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import type { EventDataOf } from '../shared/eventCatalogue.ts';
import { type GitEvent, gitEventSchemas, type GitIntegrationChanges } from './events.ts';

export type GitIntegrationConnect = EventDataOf<'git_integration.connected'>;

export type GitIntegrationCommand =
  | { type: 'connect'; integration: GitIntegrationConnect }
  | { type: 'update'; changes: GitIntegrationChanges }
  | { type: 'rotateSecret'; webhookSecret: string }
  | { type: 'disconnect' }
  | { type: 'recordDelivery'; delivery: Omit<EventDataOf<'git_webhook.received'>, 'integrationId'> }
  | { type: 'recordGitopsSync'; sync: Omit<EventDataOf<'git_integration.gitops_synced'>, 'integrationId'> }
  | { type: 'recordCiFailure'; failure: Omit<EventDataOf<'git_ci_failed'>, 'integrationId'> };

export interface GitIntegrationState {
  status: 'absent' | 'connected' | 'disconnected';
  integrationId: string | null;
  settings: (Omit<GitIntegrationConnect, 'integrationId'> & { status: 'active' | 'paused' }) | null;
}

const notFound = () => new AppError('NOT_FOUND', 'Git integration not found');

function effectiveChanges(settings: NonNullable<GitIntegrationState['settings']>, changes: GitIntegrationChanges): GitIntegrationChanges {
  const effective: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes) as [keyof GitIntegrationChanges, unknown][]) {
    if (value !== undefined && JSON.stringify(value) !== JSON.stringify(settings[key])) effective[key] = value;
  }
  return effective as GitIntegrationChanges;
}

export const gitIntegrationDecider: Decider<GitIntegrationState, GitIntegrationCommand, GitEvent> = {
  eventTypes: eventTypesOf(gitEventSchemas),
  initialState: () => ({ status: 'absent', integrationId: null, settings: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'git_integration.connected': {
        const { integrationId, ...settings } = event.data;
        return { status: 'connected', integrationId, settings: { ...settings, status: 'active' } };
      }
      case 'git_integration.updated':
        return { ...state, settings: { ...state.settings!, ...event.data.changes } };
      case 'git_integration.secret_rotated':
        return { ...state, settings: { ...state.settings!, webhookSecret: event.data.webhookSecret } };
      case 'git_integration.disconnected':
        return { ...state, status: 'disconnected' };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'connect') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'Git integration already exists');
      return [{ type: 'git_integration.connected', data: command.integration }];
    }
    if (state.status !== 'connected') throw notFound();
    const integrationId = state.integrationId!;
    switch (command.type) {
      case 'update': {
        const changes = effectiveChanges(state.settings!, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'git_integration.updated', data: { integrationId, changes } }];
      }
      case 'rotateSecret':
        return [{ type: 'git_integration.secret_rotated', data: { integrationId, webhookSecret: command.webhookSecret } }];
      case 'disconnect':
        return [{ type: 'git_integration.disconnected', data: { integrationId } }];
      case 'recordDelivery':
        return [{ type: 'git_webhook.received', data: { integrationId, ...command.delivery } }];
      case 'recordGitopsSync':
        return [{ type: 'git_integration.gitops_synced', data: { integrationId, ...command.sync } }];
      case 'recordCiFailure':
        return [{ type: 'git_ci_failed', data: { integrationId, ...command.failure } }];
    }
  },
};

/** The preview site of a pull request: `${siteId}__pr-${number}` (null when that id would be too long for a site id). */
export function previewSiteId(siteId: string, pullRequest: number): string | null {
  const id = `${siteId}__pr-${pullRequest}`;
  return id.length <= 63 ? id : null;
}
