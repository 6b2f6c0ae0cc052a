// `npm run bench -- <name> [options]`: runs the `run(args)` of scripts/bench/<name>.ts.
import { readdirSync } from 'node:fs';

interface Benchmark {
  run(args: string[]): Promise<void>;
}

const directory = new URL('./bench/', import.meta.url);
const available = readdirSync(directory)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();
const [name, ...args] = process.argv.slice(2);

if (!name || !available.includes(name)) {
  process.stderr.write(
    `${name ? `unknown benchmark "${name}"\n` : ''}usage: npm run bench -- <name> [options]\nbenchmarks: ${available.join(', ') || '(none)'}\n`,
  );
  process.exit(2);
}

const benchmark = (await import(new URL(`${name}.ts`, directory).href)) as Partial<Benchmark>;
if (typeof benchmark.run !== 'function') {
  process.stderr.write(`scripts/bench/${name}.ts does not export run(args)\n`);
  process.exit(2);
}
try {
  await benchmark.run(args);
  process.exit(0);
} catch (error) {
  process.stderr.write(`bench ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
