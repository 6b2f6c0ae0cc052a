// Preview sites (docs/integrations.md "Preview sites"): with sync_config.preview on, a pull request
// opened or pushed to gets the site `${siteId}__pr-${number}` with its manifest's schema (imported
// with mode replace-all, so the preview is exactly the pull request's model), served like any site
// (/api/v1/deliver/page/<preview>/…). Close or merge tears it down: its collections are deleted (their
// items with them) and the site is deleted. A preview site has no users; the log keeps its history.
import { previewSiteId } from '../../../domain/git/integration.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { GitRepository, PullRequestInfo } from '../../../infra/git/gitHost.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import { readSiteSchema } from '../../schema/siteSchema.ts';
import { importManifest } from '../config/importManifest.ts';
import { withWebhookTools } from '../config/webhookTools.ts';
import { createSiteIn, deleteSite } from '../instance/handlers.ts';
import { deleteCollection } from '../schema/handlers.ts';
import { readManifestAt } from './pullRequests.ts';

/** Live preview sites one site may have at once: a pull request beyond gets none until one closes. */
export const MAX_LIVE_PREVIEWS = 20;
/** A preview's manifest is read up to this size (a site's own import takes up to 16 MiB). */
const PREVIEW_MANIFEST_LIMIT = 2 * 1024 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How many preview sites of the site are live (`<siteId>__pr-<n>`, not deleted). */
async function livePreviews(context: AppContext, siteId: string): Promise<number> {
  const prefix = `${siteId}__pr-`.replaceAll('_', '\\_');
  const [row] = await context.database.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM sites WHERE id LIKE ${`${prefix}%`} AND deleted_at IS NULL`);
  return row?.count ?? 0;
}

export type PreviewOutcome = 'preview_synced' | 'preview_closed' | 'preview_skipped' | 'preview_failed';

/**
 * Whether the preview id is free, this integration's live preview, spent, or a site someone else made
 * (an instance administrator may have named a site so): only the integration's own preview is changed.
 */
async function previewStatus(context: AppContext, previewId: string, integrationId: string): Promise<'absent' | 'ours' | 'deleted' | 'foreign'> {
  const [row] = await context.database.query<{ deleted: boolean }>(sql`SELECT deleted_at IS NOT NULL AS deleted FROM sites WHERE id = ${previewId}`);
  if (row === undefined) return 'absent';
  if (row.deleted) return 'deleted';
  const [created] = await context.database.withSiteReads(previewId, (tx) =>
    tx.query<{ actor: string | null }>(sql`SELECT metadata->'actor'->>'id' AS actor FROM events WHERE stream_id = ${streamId(previewId, 'site', previewId)} AND stream_position = 1`),
  );
  return created?.actor === `git:${integrationId}` ? 'ours' : 'foreign';
}

/**
 * Creates or updates a pull request's preview site from the manifest at its head. Answers what
 * happened and why (a missing or invalid manifest, an id too long, a spent id of a reopened pull
 * request), never throws for the repository's content.
 */
export async function syncPreview(
  context: AppContext,
  siteId: string,
  integrationId: string,
  repository: GitRepository,
  manifestPath: string,
  pull: Pick<PullRequestInfo, 'number' | 'headSha' | 'title'>,
  metadata: EventMetadata,
  forgetSite: (siteId: string) => void,
): Promise<{ outcome: PreviewOutcome; previewSiteId: string | null; detail: string | null }> {
  const previewId = previewSiteId(siteId, pull.number);
  if (previewId === null) return { outcome: 'preview_skipped', previewSiteId: null, detail: 'the preview site id would be longer than 63 characters' };
  const status = await previewStatus(context, previewId, integrationId);
  // A site id names its streams for ever: a reopened pull request's torn-down preview is not made again.
  if (status === 'deleted') return { outcome: 'preview_skipped', previewSiteId: previewId, detail: 'the preview of this pull request was torn down; its id is spent' };
  if (status === 'foreign') return { outcome: 'preview_skipped', previewSiteId: previewId, detail: 'a site of that id exists and is not this integration’s preview' };
  if (status === 'absent' && (await livePreviews(context, siteId)) >= MAX_LIVE_PREVIEWS) {
    return { outcome: 'preview_skipped', previewSiteId: previewId, detail: `the site has ${MAX_LIVE_PREVIEWS} live preview sites already` };
  }
  const read = await readManifestAt(repository, manifestPath, pull.headSha, PREVIEW_MANIFEST_LIMIT);
  if ('problem' in read) return { outcome: 'preview_failed', previewSiteId: previewId, detail: read.problem };
  if (!isObject(read.manifest)) return { outcome: 'preview_failed', previewSiteId: previewId, detail: `${manifestPath} is not a JSON object` };
  if (status === 'absent') {
    try {
      await context.database.withSite(previewId, (tx) => createSiteIn(context, tx, previewId, `Preview of #${pull.number}: ${pull.title}`.slice(0, 200), new Date(), metadata));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'CONFLICT')) throw error;
      // Made in between: by another copy of this delivery (then it is ours), or by someone else.
      if ((await previewStatus(context, previewId, integrationId)) !== 'ours') {
        return { outcome: 'preview_skipped', previewSiteId: previewId, detail: 'a site of that id was made meanwhile, not by this integration' };
      }
    }
    forgetSite(previewId);
  }
  // The schema only: a pull request's author does not choose where the preview's webhooks go, nor its settings.
  const { webhooks: _webhooks, settings: _settings, ...schemaOnly } = read.manifest;
  try {
    await withWebhookTools(context, (tools) => importManifest(context, tools, previewId, schemaOnly, { mode: 'replace-all', dryRun: false, allowDestructive: true }, metadata));
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return { outcome: 'preview_failed', previewSiteId: previewId, detail: `the manifest does not apply: ${error.message}` };
  }
  return { outcome: 'preview_synced', previewSiteId: previewId, detail: null };
}

/** Tears a pull request's preview site down, when it has one: its collections (and their items), then the site. */
export async function closePreview(
  context: AppContext,
  siteId: string,
  integrationId: string,
  number: number,
  metadata: EventMetadata,
  forgetSite: (siteId: string) => void,
): Promise<boolean> {
  const previewId = previewSiteId(siteId, number);
  if (previewId === null || (await previewStatus(context, previewId, integrationId)) !== 'ours') return false;
  const schema = await context.database.withSiteReads(previewId, (tx) => readSiteSchema(tx, previewId));
  for (const name of schema.collections.keys()) {
    try {
      await deleteCollection(context, previewId, name, metadata);
    } catch (error) {
      // A relation's delete already took it.
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    }
  }
  try {
    await deleteSite(context, previewId, metadata);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'SITE_NOT_FOUND')) throw error;
  }
  context.schemas.invalidate(previewId);
  forgetSite(previewId);
  return true;
}
