// The kill switch (docs/agents.md "Kill switch"): a freeze stops, at once, every skill call of its
// scope (the agent gate refuses them with AGENT_FROZEN) until it is lifted; engaging one tells every
// session of the site (a critical `agents.frozen` notification).
import { randomUUID } from 'node:crypto';
import { freezeDecider } from '../../../domain/agents/killSwitch.ts';
import { errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { publishNotification } from '../realtime/notifications.ts';
import { findFreeze } from './killSwitchQueries.ts';
import type { FreezeBody, FreezeView, LiftBody } from './killSwitchSchemas.ts';

const freezeStream = (siteId: string, freezeId: string) => streamId(siteId, 'agent-freeze', freezeId);

const SCOPE_TITLES = { run: 'a goal run', intent: 'an intent', role: 'an agent role', site: 'every agent of the site' } as const;

export async function engageFreeze(context: AppContext, siteId: string, input: FreezeBody, metadata: EventMetadata): Promise<FreezeView> {
  const freezeId = randomUUID();
  const target = input.scope === 'site' ? null : (input.target ?? null);
  await handleCommand(context, {
    siteId,
    streamId: freezeStream(siteId, freezeId),
    decider: freezeDecider,
    command: { type: 'freeze', freezeId, scope: input.scope, target, reason: input.reason },
    metadata,
  });
  await publishNotification(
    context,
    siteId,
    {
      kind: 'agents.frozen',
      severity: 'critical',
      title: `Agents frozen: ${SCOPE_TITLES[input.scope]}${target === null ? '' : ` (${target})`}`,
      body: input.reason,
      deepLink: '/agent/kill-switch',
      entityId: freezeId,
    },
    metadata,
  );
  return (await context.database.withSiteReads(siteId, (tx) => findFreeze(tx, siteId, freezeId)))!;
}

export async function liftFreeze(context: AppContext, siteId: string, input: LiftBody, metadata: EventMetadata): Promise<FreezeView> {
  if (!isUuid(input.freezeId)) throw errors.notFound('Freeze not found');
  await handleCommand(context, {
    siteId,
    streamId: freezeStream(siteId, input.freezeId),
    decider: freezeDecider,
    command: { type: 'lift', reason: input.reason ?? null },
    metadata,
  });
  return (await context.database.withSiteReads(siteId, (tx) => findFreeze(tx, siteId, input.freezeId)))!;
}
