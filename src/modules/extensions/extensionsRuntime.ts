// The extensions area's runtime: the sandbox that runs extensions' code in child processes, at most
// SANDBOX_CONCURRENCY at once on this instance (the others wait their turn); stopping kills them.
import { type ExtensionSandbox, openExtensionSandbox } from '../../../infra/extensions/sandbox.ts';
import type { AppContext } from '../../runtime/context.ts';

/** Children running extension code at once per instance. */
export const SANDBOX_CONCURRENCY = 4;

export interface ExtensionsRuntime {
  sandbox: ExtensionSandbox;
  stop(): Promise<void>;
}

export function openExtensionsRuntime(_context: AppContext): ExtensionsRuntime {
  const sandbox = openExtensionSandbox({ concurrency: SANDBOX_CONCURRENCY });
  return { sandbox, stop: () => sandbox.stop() };
}
