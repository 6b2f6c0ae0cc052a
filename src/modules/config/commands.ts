// The config area's command (the command registry, docs/architecture.md): apply a config manifest.
// A dry run writes nothing and is no command: its route plans the manifest directly.
//
// Dangerous, whatever allowDestructive says (the flag is one per command, not per input): without it
// an import still deletes the collections, fields, relations, settings and webhooks a replace mode
// finds missing, and changes collections' editorial workflows and fields' sensitivity; with it, items'
// values can be lost as well.
import { z } from 'zod';
import { IMPORT_MODES } from '../../../domain/config/manifest.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { importManifest } from './importManifest.ts';
import { withWebhookTools } from './webhookTools.ts';

const importCommand = defineCommand({
  name: 'config.import',
  description:
    "Apply a config manifest (schema, settings, webhooks) in one transaction: `merge` adds and changes, `replace-managed` and `replace-all` also delete what it lacks; destructive changes need allowDestructive. Any error, and nothing is applied.",
  input: z.object({ manifest: z.unknown(), mode: z.enum(IMPORT_MODES).default('merge'), allowDestructive: z.boolean().default(false) }),
  bodyKey: 'manifest',
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) =>
    withWebhookTools(context, (tools) =>
      importManifest(context, tools, siteId, input.manifest, { mode: input.mode, dryRun: false, allowDestructive: input.allowDestructive }, metadata),
    ),
});

export const configCommands = { import: importCommand };
