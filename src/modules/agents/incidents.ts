// Agent incidents (docs/agent-goals.md "Incidents"): raised by an agent (or an integration acting as
// one: git-sync) with the role it acts under, told to every session and browser of the site (a
// notification), resolved once by a site administrator.
import { randomUUID } from 'node:crypto';
import { incidentDecider } from '../../../domain/agents/incident.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import type { UserPrincipal } from '../../auth/principal.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { publishNotification } from '../realtime/notifications.ts';
import { findIncident, findIntent } from './agentWorkQueries.ts';
import type { IncidentView, RaiseIncidentBody } from './agentWorkSchemas.ts';

const incidentStream = (siteId: string, incidentId: string) => streamId(siteId, 'agent-incident', incidentId);

export type IncidentToRaise = Pick<IncidentView, 'role' | 'severity' | 'title' | 'detail' | 'intentId' | 'raisedBy'>;

/** Raises an incident in the caller's site transaction; announce it once that commits. */
export async function raiseIncidentIn(context: AppContext, tx: Queryable, siteId: string, incidentId: string, incident: IncidentToRaise, metadata: EventMetadata): Promise<IncidentView> {
  await handleCommandIn(tx, context.projections, {
    siteId,
    streamId: incidentStream(siteId, incidentId),
    decider: incidentDecider,
    command: { type: 'raiseIncident', incident: { incidentId, ...incident } },
    metadata,
  });
  return (await findIncident(tx, siteId, incidentId))!;
}

/** Tells every session and browser of the site of a raised incident (a notification). */
export async function announceIncident(context: AppContext, siteId: string, incident: IncidentView, metadata: EventMetadata): Promise<void> {
  await publishNotification(
    context,
    siteId,
    {
      kind: 'agents.incident',
      severity: incident.severity,
      title: `Agent incident (${incident.role}): ${incident.title}`,
      body: incident.detail,
      deepLink: `/agent/incidents/${incident.id}`,
      entityId: incident.id,
    },
    metadata,
  );
}

export async function raiseIncident(context: AppContext, siteId: string, principal: UserPrincipal, input: RaiseIncidentBody, metadata: EventMetadata): Promise<IncidentView> {
  const intentId = input.intentId ?? null;
  const incident = await inSiteTransaction(context, siteId, async (tx) => {
    if (intentId !== null && !(isUuid(intentId) && (await findIntent(tx, siteId, intentId)))) {
      throw new AppError('VALIDATION_FAILED', 'No intent with this id', { path: ['body', 'intentId'] });
    }
    const content = { role: input.role, severity: input.severity, title: input.title, detail: input.detail ?? null, intentId, raisedBy: principal.userId };
    return raiseIncidentIn(context, tx, siteId, randomUUID(), content, metadata);
  });
  await announceIncident(context, siteId, incident, metadata);
  return incident;
}

export async function resolveIncident(context: AppContext, siteId: string, principal: UserPrincipal, id: string, note: string | null, metadata: EventMetadata): Promise<IncidentView> {
  const incidentId = uuidOr404(id, 'Incident');
  return inSiteTransaction(context, siteId, async (tx) => {
    if (!(await findIncident(tx, siteId, incidentId))) throw errors.notFound('Incident not found');
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: incidentStream(siteId, incidentId),
      decider: incidentDecider,
      command: { type: 'resolveIncident', resolvedBy: principal.userId, note },
      metadata,
    });
    return (await findIncident(tx, siteId, incidentId))!;
  });
}
