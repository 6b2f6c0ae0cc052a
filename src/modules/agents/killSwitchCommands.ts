// The kill switch's commands (the command registry): both need the capability agents:freeze. A freeze
// only stops agents, so it is not dangerous: whoever holds the capability (a reviewing agent
// included) stops a runaway at once. Lifting resumes agents, so it is dangerous: an agent asks first.
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
  handler: (context, { siteId, input, metadata }) => liftFreeze(context, siteId, input, metadata),
});

export const killSwitchCommands = { freeze, lift };
