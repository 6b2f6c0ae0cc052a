// `svc config export|diff|apply`: the config manifest from the command line, straight on the database
// (no running service needed), with the semantics of GET /config/export and POST /config/import.
// Exit codes for CI: 0 done (diff: valid and applicable), 1 invalid manifest or a refusal, 2 destructive
// changes that need --allow-destructive.
import { Command, Option } from 'commander';
import { EXPORT_SCOPES, IMPORT_MODES, type ExportScope } from '../../domain/config/manifest.ts';
import type { Config } from '../config/config.ts';
import type { ImportFlags } from './configRun.ts';

// The work is loaded when a config command runs: other commands start without the modules it needs.
const run = () => import('./configRun.ts');

const modeOption = () => new Option('--mode <mode>', 'merge: create and update; replace-managed: also delete within managedScopes; replace-all: delete whatever is absent').choices(IMPORT_MODES).default('merge');

export function configCommand(loadConfig: () => Config): Command {
  const command = new Command('config').description('export a site configuration as a manifest (svc.config@v1), or diff and apply one');
  command
    .command('export')
    .description('write the site configuration as a manifest (no items, secrets or access control)')
    .requiredOption('--site <id>', 'the site')
    .addOption(new Option('--scope <scope>', 'what to export').choices(EXPORT_SCOPES).default('all'))
    .option('--file <path>', 'write the manifest here instead of standard output')
    .action(async (flags: { site: string; scope: ExportScope; file?: string }) => (await run()).runExport(loadConfig, flags));
  command
    .command('diff')
    .description('validate a manifest and print what applying it would change (writes nothing)')
    .requiredOption('--file <path>', 'the manifest (JSON)')
    .requiredOption('--site <id>', 'the site')
    .addOption(modeOption())
    .option('--allow-destructive', 'do not fail on destructive changes')
    .option('--json', 'print the answer of POST /config/import?dryRun=true')
    .action(async (flags: ImportFlags) => (await run()).runImport(loadConfig, flags, true));
  command
    .command('apply')
    .description('apply a manifest in one transaction (all or nothing)')
    .requiredOption('--file <path>', 'the manifest (JSON)')
    .requiredOption('--site <id>', 'the site')
    .addOption(modeOption())
    .option('--allow-destructive', 'apply destructive changes (dropping data, changing a field type, widening onDelete to cascade)')
    .option('--json', 'print the answer of POST /config/import')
    .action(async (flags: ImportFlags) => (await run()).runImport(loadConfig, flags, false));
  return command;
}
