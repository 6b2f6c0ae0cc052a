#!/usr/bin/env node
// The `svc` command in development: registers the TypeScript loader, then hands over to the CLI.
// The production image runs the compiled CLI instead (`npm run build`, then `node dist/src/cli/run.js`).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/run.ts');
