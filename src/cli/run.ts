// The `svc` command's entry: bin/svc.mjs loads it through the TypeScript loader in development, and
// the production image runs its compiled form (dist/src/cli/run.js, `npm run build`).
import { runCli } from './main.ts';

await runCli(process.argv);
