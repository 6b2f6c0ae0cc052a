// POST /config/import: reads the manifest, plans it against the site, and either answers the plan
// (dry-run, nothing written) or applies all of it in one site transaction. Every error is reported,
// the manifest's own and the site's; an apply with any error, or with a destructive change and no
// allowDestructive, writes nothing.
import { randomUUID } from 'node:crypto';
import type { ConfigPlan, ManifestDiff } from '../../../domain/config/configPlan.ts';
import type { ImportMode, ManifestError } from '../../../domain/config/manifest.ts';
import { diffOf, markDestructive, planImport } from '../../../domain/config/planImport.ts';
import { readManifest, type ParsedManifest } from '../../../domain/config/readManifest.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { OutboundRequestError } from '../../../infra/http/outboundHttp.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { advisoryKey } from '../../runtime/projectionRunner.ts';
import type { SecretBox } from '../cdc/webhookSecrets.ts';
import { keyProblem, valueProblem } from '../settings/catalogue.ts';
import { applyPlanIn, rehearsePlan } from './applyPlan.ts';
import { readDataPresence, readSiteConfiguration, readSubscriptions, readTypeChanges, reshapeErrors } from './configState.ts';

/** What an import needs beyond the context: sealing webhook secrets, and the outbound rules for webhook URLs. */
export interface WebhookTools {
  secrets: SecretBox;
  checkUrl(url: string): Promise<void>;
}

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  allowDestructive: boolean;
}

export interface AppliedCounts {
  created: number;
  updated: number;
  deleted: number;
  /** Only when the import changed a field's type over values: how many values it converted and how many it set to null (docs/configuration.md). */
  converted?: number;
  nulled?: number;
}

export interface ImportResult {
  valid: boolean;
  errors: ManifestError[];
  /** Null when the body is not a manifest of this version. */
  diff: ManifestDiff | null;
  applied?: AppliedCounts;
}

/** The settings area's rules on each setting of the manifest (key, then value). */
function settingErrors(manifest: ParsedManifest): ManifestError[] {
  return manifest.settings.flatMap((entry): ManifestError[] => {
    const keyIssue = keyProblem(entry.key);
    if (keyIssue) return [{ code: 'VALIDATION_FAILED', message: keyIssue, path: [...entry.path, 'key'] }];
    const valueIssue = valueProblem(entry.key, entry.value);
    return valueIssue ? [{ code: 'VALIDATION_FAILED', message: `${entry.key}: ${valueIssue.message}`, path: [...entry.path, 'value', ...valueIssue.path] }] : [];
  });
}

/** The outbound rules on the URL of each webhook the import creates or points elsewhere (checked before any transaction). */
async function webhookUrlErrors(context: AppContext, tools: WebhookTools, siteId: string, manifest: ParsedManifest): Promise<ManifestError[]> {
  if (manifest.webhooks.length === 0) return [];
  const current = new Map((await context.database.withSiteReads(siteId, (tx) => readSubscriptions(tx, siteId))).map((row) => [row.name, row.url]));
  const errors: ManifestError[] = [];
  for (const entry of manifest.webhooks) {
    if (current.get(entry.name) === entry.url) continue;
    try {
      await tools.checkUrl(entry.url);
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      errors.push({ code: 'VALIDATION_FAILED', message: `Webhook URL refused: ${error.message}`, path: [...entry.path, 'url'] });
    }
  }
  return errors;
}

/** The plan and every error, read in `tx` (a dry-run's read transaction, or the apply's own). */
async function evaluate(tx: Queryable, siteId: string, manifest: ParsedManifest, mode: ImportMode, earlier: ManifestError[]) {
  const site = await readSiteConfiguration(tx, siteId);
  const plan = planImport(site, manifest, mode, randomUUID);
  const typeChanges = await readTypeChanges(tx, siteId, site.relations, plan.dataChecks);
  const errors = [
    ...earlier,
    ...settingErrors(manifest),
    ...plan.errors,
    ...(await reshapeErrors(tx, siteId, plan.dataChecks)),
    ...typeChanges.errors,
  ];
  markDestructive(plan.changes, { ...(await readDataPresence(tx, siteId, plan.dataChecks)), conversions: typeChanges.conversions });
  errors.push(...(await rehearsePlan(tx, siteId, plan, manifest.base)));
  return { plan, errors };
}

function appliedOf(plan: ConfigPlan): AppliedCounts {
  const counts = Object.values(plan.counts);
  const applied: AppliedCounts = {
    created: counts.reduce((sum, count) => sum + count.create, 0),
    updated: counts.reduce((sum, count) => sum + count.update, 0),
    deleted: counts.reduce((sum, count) => sum + count.delete, 0),
  };
  const conversions = plan.changes.flatMap((change) => (change.conversion ? [change.conversion] : []));
  if (conversions.length === 0) return applied;
  return {
    ...applied,
    converted: conversions.reduce((sum, conversion) => sum + conversion.converted, 0),
    nulled: conversions.reduce((sum, conversion) => sum + conversion.nulled, 0),
  };
}

/** The refusal of an invalid manifest: the first error's code and path, every error in extensions.errors. */
function invalidManifest(errors: ManifestError[], diff: ManifestDiff | null): AppError {
  const [first] = errors;
  const message = `The manifest has ${errors.length} error${errors.length === 1 ? '' : 's'}; nothing was applied. First: ${first!.message}`;
  return new AppError(first!.code, message, { path: first!.path, extensions: { errors, diff } });
}

export async function importManifest(
  context: AppContext,
  tools: WebhookTools,
  siteId: string,
  body: unknown,
  options: ImportOptions,
  metadata: EventMetadata,
): Promise<ImportResult> {
  const reading = readManifest(body);
  const manifest = reading.manifest;
  if (!manifest) {
    if (options.dryRun) return { valid: false, errors: reading.errors, diff: null };
    throw invalidManifest(reading.errors, null);
  }
  const earlier = [...reading.errors, ...(await webhookUrlErrors(context, tools, siteId, manifest))];
  if (options.dryRun) {
    const { plan, errors } = await context.database.withSite(siteId, (tx) => evaluate(tx, siteId, manifest, options.mode, earlier));
    return { valid: errors.length === 0, errors, diff: diffOf(plan) };
  }
  try {
    return await inSiteTransaction(context, siteId, async (tx) => {
      // One import of a site at a time: the second plans against what the first applied.
      await tx.query(sql`SELECT pg_advisory_xact_lock(${advisoryKey(`config-import:${siteId}`)})`);
      const { plan, errors } = await evaluate(tx, siteId, manifest, options.mode, earlier);
      const diff = diffOf(plan);
      if (errors.length > 0) throw invalidManifest(errors, diff);
      const blocked = plan.changes.filter((change) => change.destructive !== undefined);
      if (blocked.length > 0 && !options.allowDestructive) {
        const list = blocked.map((change) => `${change.action} ${change.key} (${change.destructive})`).join('; ');
        throw new AppError('DESTRUCTIVE_BLOCKED', `${blocked.length} destructive change${blocked.length === 1 ? '' : 's'} need allowDestructive=true: ${list}`, {
          extensions: { blocked, diff },
        });
      }
      const settingPaths = new Map(manifest.settings.map((entry) => [entry.key, entry.path]));
      await applyPlanIn(context, tx, siteId, plan, { secrets: tools.secrets, settingPaths, base: manifest.base }, metadata);
      return { valid: true, errors: [], diff, applied: appliedOf(plan) };
    });
  } finally {
    context.schemas.invalidate(siteId);
  }
}
