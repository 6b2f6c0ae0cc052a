#!/usr/bin/env node
// The `svc` command: registers the TypeScript loader, then hands over to the CLI.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
await runCli(process.argv);
