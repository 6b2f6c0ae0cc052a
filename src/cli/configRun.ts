// What `svc config export|diff|apply` do (./configCommand.ts declares them; loaded only when one
// runs): straight on the database, with the semantics of GET /config/export and POST /config/import.
import { readFile, writeFile } from 'node:fs/promises';
import type { ExportScope, ImportMode } from '../../domain/config/manifest.ts';
import { AppError } from '../../domain/shared/appError.ts';
import type { EventMetadata } from '../../domain/shared/events.ts';
import { sql } from '../../infra/postgres/sql.ts';
import type { Config } from '../config/config.ts';
import { createContext } from '../boot/boot.ts';
import { cliLogger } from './cliLogger.ts';
import { exportManifest } from '../modules/config/exportManifest.ts';
import { importManifest, type ImportResult } from '../modules/config/importManifest.ts';
import { createWebhookTools } from '../modules/config/webhookTools.ts';
import type { AppContext } from '../runtime/context.ts';
import { manifestPath, planText } from './configPlanText.ts';

const CLI_METADATA: EventMetadata = { actor: { kind: 'system', id: 'cli' } };

export interface ImportFlags {
  file: string;
  site: string;
  mode: ImportMode;
  allowDestructive?: boolean;
  json?: boolean;
}

/** A context for a command on one site (no daemons, warnings only); fails when the site does not exist. */
export async function withSiteContext<T>(loadConfig: () => Config, siteId: string, work: (context: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const context = await createContext({ ...config, LOG_LEVEL: 'warn' }, { runProjections: false, logger: cliLogger(config) });
  try {
    const [site] = await context.database.withSystem((tx) => tx.query(sql`SELECT 1 FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`));
    if (!site) throw new Error(`Site ${siteId} not found`);
    return await work(context);
  } finally {
    await context.close();
  }
}

async function readManifestFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
}

/** Prints an import's answer (JSON or the readable plan) and sets the exit code. */
function report(result: ImportResult, flags: ImportFlags, refusal: AppError | null): void {
  if (flags.json) console.log(JSON.stringify(refusal ? { errors: [{ code: refusal.code, message: refusal.message, path: refusal.path, extensions: refusal.extensions }] } : { data: result }, null, 2));
  else console.log(planText(result.diff, result.errors));
  const blocked = result.diff?.changes.filter((change) => change.destructive !== undefined) ?? [];
  if (refusal?.code === 'DESTRUCTIVE_BLOCKED' || (!result.applied && result.valid && blocked.length > 0 && !flags.allowDestructive)) {
    process.stderr.write(`svc: ${blocked.length} destructive change(s) need --allow-destructive; nothing was applied\n`);
    process.exitCode = 2;
  } else if (refusal) {
    process.stderr.write(`svc: ${refusal.code} at ${manifestPath(refusal.path)}: ${refusal.message}\n`);
    process.exitCode = 1;
  } else if (!result.valid) {
    process.stderr.write(`svc: the manifest is not valid; nothing would be applied\n`);
    process.exitCode = 1;
  } else if (result.applied) {
    console.log(`applied: ${result.applied.created} created, ${result.applied.updated} updated, ${result.applied.deleted} deleted`);
  }
}

export async function runImport(loadConfig: () => Config, flags: ImportFlags, dryRun: boolean): Promise<void> {
  const body = await readManifestFile(flags.file);
  await withSiteContext(loadConfig, flags.site, async (context) => {
    const options = { mode: flags.mode, dryRun, allowDestructive: flags.allowDestructive === true };
    try {
      report(await importManifest(context, createWebhookTools(context), flags.site, body, options, CLI_METADATA), flags, null);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const { errors, diff } = error.extensions as Partial<Pick<ImportResult, 'errors' | 'diff'>>;
      report({ valid: errors === undefined, errors: errors ?? [], diff: diff ?? null }, flags, error);
    }
  });
}

export async function runExport(loadConfig: () => Config, flags: { site: string; scope: ExportScope; file?: string }): Promise<void> {
  const manifest = await withSiteContext(loadConfig, flags.site, (context) => context.database.withSite(flags.site, (tx) => exportManifest(tx, flags.site, flags.scope)));
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  if (flags.file) await writeFile(flags.file, text);
  else process.stdout.write(text);
}
