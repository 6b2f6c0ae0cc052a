// POST /extensions/:id/run: runs an enabled extension's entry function with an input in the sandbox
// (infra/extensions/sandbox.ts), serving its calls with its grants and the caller's permissions. A
// run that fails (the code threw, or a limit stopped it) is an answer, not an error of the request.
import { errors, AppError } from '../../../domain/shared/appError.ts';
import { DEFAULT_SANDBOX_LIMITS, type ExtensionSandbox } from '../../../infra/extensions/sandbox.ts';
import type { CommandRunOptions } from '../../runtime/commandRegistry.ts';
import type { AppContext } from '../../runtime/context.ts';
import { capabilityHandler, type RunLog } from './capabilityApi.ts';
import { findCode, findExtension } from './queries.ts';
import type { RunResult } from './schemas.ts';

export async function runExtension(
  context: AppContext,
  sandbox: ExtensionSandbox,
  caller: CommandRunOptions,
  extensionId: string,
  run: { input?: unknown; timeoutMs?: number | undefined },
): Promise<RunResult> {
  const found = await context.database.withSiteReads(caller.siteId, async (tx) => {
    const extension = await findExtension(tx, caller.siteId, extensionId);
    return extension ? { extension, code: await findCode(tx, caller.siteId, extensionId) } : null;
  });
  if (!found || found.code === null) throw errors.notFound('Extension not found');
  const { extension, code } = found;
  if (extension.status !== 'enabled') throw new AppError('CONFLICT', 'The extension is disabled: enable it to run it');
  const logs: RunLog[] = [];
  const outcome = await sandbox.run({
    code,
    entry: extension.entry,
    input: run.input ?? null,
    limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: run.timeoutMs ?? DEFAULT_SANDBOX_LIMITS.timeoutMs },
    onCall: capabilityHandler(context, caller, { id: extension.id, granted: extension.capabilities.granted }, logs),
  });
  return outcome.status === 'succeeded'
    ? { status: 'succeeded', output: outcome.output, error: null, logs, durationMs: outcome.durationMs }
    : { status: 'failed', output: null, error: outcome.error, logs, durationMs: outcome.durationMs };
}
