// The logger of every `svc` command but `start`: log lines go to standard error, so standard output
// carries only what the command answers (`svc config export --site s > manifest.json`). `svc start`
// is the service and logs to standard output as it always has (src/boot/boot.ts createLogger).
import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { createLogger } from '../boot/boot.ts';

/** Warnings and errors only: a command's own output is not drowned in the service's start-up lines. */
export function cliLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  // Synchronous: a command that fails calls process.exit, which must not lose the line that says why.
  return createLogger({ ...config, LOG_LEVEL: 'warn' }, pino.destination({ dest: 2, sync: true }));
}
