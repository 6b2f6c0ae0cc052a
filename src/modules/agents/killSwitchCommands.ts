// The kill switch's commands (the command registry): both need the capability agents:freeze. A freeze
// only stops agents, so it is not dangerous: whoever holds the capability (a reviewing agent
// included) stops a runaway at once. Lifting resumes agents: a person's decision (an API key or a
// flow holding the capability is refused), and dangerous for an agent asking through a skill.
import { errors } from '../../../domain/shared/appError.ts';
import { isPerson } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { engageFreeze, liftFreeze } from './killSwitch.ts';
import { FREEZE_CAPABILITY, freezeBody, liftBody } from './killSwitchSchemas.ts';

const freeze = defineCommand({
  name: 'agents.freeze',
  description: 'Freeze agents: a goal run, an intent, an agent role, or the whole site; their skill calls are refused (423 AGENT_FROZEN) until lifted.',
  input: freezeBody,
  access: 'bearer',
  capability: FREEZE_CAPABILITY,
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => engageFreeze(context, siteId, input, metadata),
});

const lift = defineCommand({
  name: 'agents.lift',
  description: 'Lift a freeze (once): the agents it stopped may call skills again.',
  input: liftBody,
  access: 'bearer',
  capability: FREEZE_CAPABILITY,
  dangerous: true,
  handler(context, { siteId, principal, input, metadata }) {
    if (!isPerson(principal)) throw errors.forbidden('Lifting a freeze is a person’s decision: an API key may freeze, never lift');
    return liftFreeze(context, siteId, input, metadata);
  },
});

export const killSwitchCommands = { freeze, lift };
