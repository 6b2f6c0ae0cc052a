// Every event type of the log with the zod schema of its data, declared once in its context's
// events.ts and gathered here (as errorCatalogue.ts gathers the error codes). The event store checks
// each event it reads against its type's schema, after upcasting it to the latest version.
import type { z } from 'zod';
import { accessEventSchemas } from '../access/events.ts';
import { aiApprovalEventSchemas } from '../ai/approvalEvents.ts';
import { aiConversationEventSchemas } from '../ai/conversationEvents.ts';
import { agentGovernanceEventSchemas } from '../agents/governanceEvents.ts';
import { goalEventSchemas, incidentEventSchemas, intentEventSchemas, stagedActionEventSchemas } from '../agents/agentWorkEvents.ts';
import { changeFeedEventSchemas } from '../changeFeed/events.ts';
import { cloudSyncEventSchemas } from '../cloudSync/events.ts';
import { gitEventSchemas } from '../git/events.ts';
import { extensionEventSchemas } from '../extensions/events.ts';
import { contentEventSchemas } from '../content/events.ts';
import { pageEventSchemas } from '../delivery/events.ts';
import { fileEventSchemas } from '../files/events.ts';
import { editorialEventSchemas } from '../editorial/events.ts';
import { emailEventSchemas } from '../email/events.ts';
import { flowsEventSchemas } from '../flows/events.ts';
import { identityEventSchemas } from '../identity/events.ts';
import { insightsEventSchemas } from '../insights/events.ts';
import { presetEventSchemas } from '../presets/events.ts';
import { privacyEventSchemas } from '../privacy/events.ts';
import { releaseEventSchemas } from '../releases/events.ts';
import { reportEventSchemas } from '../reports/events.ts';
import { settingEventSchemas } from '../settings/events.ts';
import { siteEventSchemas } from '../sites/events.ts';
import { translationEventSchemas } from '../translation/events.ts';

export const eventCatalogue = {
  ...siteEventSchemas,
  ...settingEventSchemas,
  ...identityEventSchemas,
  ...accessEventSchemas,
  ...contentEventSchemas,
  ...changeFeedEventSchemas,
  ...editorialEventSchemas,
  ...releaseEventSchemas,
  ...pageEventSchemas,
  ...fileEventSchemas,
  ...privacyEventSchemas,
  ...emailEventSchemas,
  ...flowsEventSchemas,
  ...presetEventSchemas,
  ...insightsEventSchemas,
  ...reportEventSchemas,
  ...translationEventSchemas,
  ...aiApprovalEventSchemas,
  ...aiConversationEventSchemas,
  ...agentGovernanceEventSchemas,
  ...intentEventSchemas,
  ...goalEventSchemas,
  ...stagedActionEventSchemas,
  ...incidentEventSchemas,
  ...cloudSyncEventSchemas,
  ...gitEventSchemas,
  ...extensionEventSchemas,
};

export type EventType = keyof typeof eventCatalogue;
export type EventDataOf<Type extends EventType> = z.infer<(typeof eventCatalogue)[Type]>;

/** `{ type, data }` of any event type: testing `type` narrows `data`. */
export type DomainEvent<Type extends EventType = EventType> = { [T in Type]: { type: T; data: EventDataOf<T> } }[Type];

export const EVENT_TYPES = Object.keys(eventCatalogue) as readonly EventType[];

const schemas: ReadonlyMap<string, z.ZodType> = new Map(Object.entries(eventCatalogue));

/**
 * The event if `data` is what its type's schema describes, else what is wrong with it. The schemas
 * only check: `data` is kept as it is (its keys, their order, keys a schema does not name), so a
 * reader sees what the log holds.
 */
export function checkEvent(type: string, data: unknown): { event: DomainEvent } | { problem: string } {
  const schema = schemas.get(type);
  if (!schema) return { problem: `"${type}" is not an event type of the catalogue` };
  const result = schema.safeParse(data);
  if (!result.success) return { problem: result.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; ') };
  return { event: { type, data } as DomainEvent };
}
