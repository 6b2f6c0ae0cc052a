// run_command: any registered command (`<area>.<verb>`), as the flow's principal: the registry
// validates the input with the command's own schema, checks its access level and capability, and the
// handler its row rules. Refused: the commands that make no sense for a flow to run.
import { z } from 'zod';
import { AppError } from '../../../../domain/shared/appError.ts';
import { defineOperation } from '../operation.ts';
import { commandRun } from './optionShapes.ts';

/**
 * Refused when the flow is saved: the unsubscribe of a token (its authority is the token, not a
 * principal), and the flows' own commands (a flow that starts or edits flows would step around the
 * loop guard: trigger_flow is the way to start one).
 */
const REFUSED_COMMANDS: ReadonlySet<string> = new Set(['email.unsubscribe']);
const REFUSED_AREAS: readonly string[] = ['flows.'];
/** Access levels of commands that are not a site principal's to run: anyone's (with their own authority, a token), or the instance's. */
const REFUSED_ACCESS: ReadonlySet<string> = new Set(['public', 'instance']);

function refusal(command: string): string | null {
  if (REFUSED_COMMANDS.has(command)) return `"${command}" cannot run from a flow`;
  if (REFUSED_AREAS.some((prefix) => command.startsWith(prefix))) return `"${command}" cannot run from a flow: start another flow with trigger_flow`;
  return null;
}

const commandOption = z
  .string()
  .regex(/^[a-z][A-Za-z0-9]*\.[A-Za-z][A-Za-z0-9]*$/, 'must be a command name such as "users.invite"')
  .superRefine((command, issues) => {
    const refused = refusal(command);
    if (refused) issues.addIssue({ code: 'custom', message: refused });
  })
  .describe('The command, `<area>.<verb>` (`users.invite`, `releases.publish`). Commands open to anyone or only to the instance are refused.');

export const runCommandOperation = defineOperation({
  key: 'run_command',
  description: "Runs a registered command as the flow's principal with `input` (validated by the command's own schema); outputs the command's result.",
  options: z
    .object({
      command: commandOption,
      input: z.unknown().optional().describe('The command input (default {}); string values may be templates, "{{ $last }}" passes the last output.'),
    })
    .strict(),
  sideEffects: true,
  async run(options, call) {
    const summary = call.context.commands.list().find((command) => command.name === options.command);
    const refused = refusal(options.command) ?? (summary && REFUSED_ACCESS.has(summary.access) ? `"${options.command}" is open to ${summary.access === 'public' ? 'anyone' : 'the instance'}: it cannot run from a flow` : null);
    if (refused) throw new AppError('VALIDATION_FAILED', refused, { path: ['options', 'command'] });
    return call.context.commands.run(options.command, options.input ?? {}, commandRun(call));
  },
});
