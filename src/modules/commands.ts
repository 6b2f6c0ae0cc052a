// Every area's commands, gathered for the command registry built at boot (src/boot/boot.ts;
// docs/architecture.md, "The command registry"). Each area lists its own in its `commands.ts`.
import type { AnyAppCommand } from '../runtime/appCommand.ts';
import { apiKeyCommands } from './apiKeys/commands.ts';
import { erasureCommands } from './erasure/commands.ts';
import { itemCommands } from './items/commands.ts';
import { releaseCommands } from './releases/commands.ts';
import { roleCommands } from './roles/commands.ts';
import { teamCommands } from './teams/commands.ts';
import { userCommands } from './users/commands.ts';

export const areaCommands: readonly AnyAppCommand[] = [
  ...Object.values(itemCommands),
  ...Object.values(releaseCommands),
  ...Object.values(userCommands),
  ...Object.values(teamCommands),
  ...Object.values(roleCommands),
  ...Object.values(apiKeyCommands),
  ...Object.values(erasureCommands),
];
