// An agent incident (docs/agent-goals.md, stream `<siteId>/agent-incident/<id>`): something an agent
// (or an integration acting as one: git-sync) reports, recorded with the role that raised it, open
// until a site administrator resolves it, once.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { incidentEventSchemas, type IncidentEvent } from './agentWorkEvents.ts';

type Raised = Extract<IncidentEvent, { type: 'agent_incident.raised' }>['data'];

export type IncidentCommand = { type: 'raiseIncident'; incident: Raised } | { type: 'resolveIncident'; resolvedBy: string | null; note: string | null };

export interface IncidentState {
  status: 'absent' | 'open' | 'resolved';
  incidentId: string | null;
}

export const incidentDecider: Decider<IncidentState, IncidentCommand, IncidentEvent> = {
  eventTypes: eventTypesOf(incidentEventSchemas),
  initialState: () => ({ status: 'absent', incidentId: null }),
  evolve(state, event) {
    if (event.type === 'agent_incident.raised') return { status: 'open', incidentId: event.data.incidentId };
    return { ...state, status: 'resolved' };
  },
  decide(command, state) {
    if (command.type === 'raiseIncident') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The incident exists');
      return [{ type: 'agent_incident.raised', data: command.incident }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Incident not found');
    if (state.status === 'resolved') throw new AppError('CONFLICT', 'The incident is already resolved', { extensions: { status: 'resolved' } });
    return [{ type: 'agent_incident.resolved', data: { incidentId: state.incidentId!, resolvedBy: command.resolvedBy, note: command.note } }];
  },
};
