// `npm run drill -- <name> [options]`: runs the `run(args)` of scripts/drills/<name>.ts, prints its
// one line of figures on stdout and each violated property on stderr; exits 1 when any was violated
// (2 for a usage error). docs/drills.md says what each drill proves.
import { readdirSync } from 'node:fs';
import { UsageError, type DrillOutcome } from './support/figures.ts';

interface Drill {
  run(args: string[]): Promise<DrillOutcome>;
}

const directory = new URL('./', import.meta.url);
const available = readdirSync(directory)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();
const [name, ...args] = process.argv.slice(2);

if (!name || !available.includes(name)) {
  process.stderr.write(`${name ? `unknown drill "${name}"\n` : ''}usage: npm run drill -- <name> [--short] [options]\ndrills: ${available.join(', ')}\n`);
  process.exit(2);
}

const drill = (await import(new URL(`${name}.ts`, directory).href)) as Partial<Drill>;
if (typeof drill.run !== 'function') {
  process.stderr.write(`scripts/drills/${name}.ts does not export run(args)\n`);
  process.exit(2);
}
try {
  const outcome = await drill.run(args);
  for (const failure of outcome.failures) process.stderr.write(`drill ${name}: ${failure}\n`);
  process.stdout.write(`${outcome.line}\n`);
  process.exit(outcome.failures.length === 0 ? 0 : 1);
} catch (error) {
  // parseArgs refuses an unknown or malformed option with an ERR_PARSE_ARGS_* error.
  if (error instanceof UsageError || String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  process.stderr.write(`drill ${name} could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
