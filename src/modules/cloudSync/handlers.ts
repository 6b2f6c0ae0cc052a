// Cloud-sync pipeline commands: create (credentials sealed), update (settings, or rotated credentials:
// the old sealed value is destroyed), delete (its sealed credentials, sync state and log go with it).
import { randomUUID } from 'node:crypto';
import type { CloudSyncTarget } from '../../../domain/cloudSync/events.ts';
import { pipelineDecider, type PipelineChanges } from '../../../domain/cloudSync/pipeline.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { readFeedHead } from '../cdc/feedQueries.ts';
import { destroyCredentials, sealCredentials } from './credentials.ts';
import { findPipeline, pipelineNameTaken, viewOf, type PipelineView } from './queries.ts';
import { credentialsOfTarget, type CreatePipelineInput, type UpdatePipelineInput } from './schemas.ts';
import { clearSyncState, retryNow } from './syncState.ts';

const invalid = (message: string, ...path: (string | number)[]) => new AppError('VALIDATION_ERROR', message, { path: ['body', ...path] });
const pipelineStream = (siteId: string, pipelineId: string) => streamId(siteId, 'cloud_sync_pipeline', pipelineId);

/** Every listed collection exists in the site's schema. */
async function checkCollections(context: AppContext, siteId: string, collections: readonly string[]): Promise<void> {
  const schema = await context.schemas.site(siteId);
  const unknown = collections.findIndex((name) => !schema.collections.has(name));
  if (unknown >= 0) throw invalid(`No collection "${collections[unknown]}" in this site`, 'collections', unknown);
}

/** A document database's document sits in a collection: the template must name one (an odd number of segments). */
function checkTargetPath(target: CloudSyncTarget, targetPath: string): void {
  if (target === 'firestore' && targetPath.split('/').length % 2 === 0) {
    throw invalid('A document database path must name a collection: an odd number of segments, e.g. "{collection}" or "sites/main/{collection}"', 'targetPath');
  }
}

/** Credentials of the pipeline's target, parsed (a service account keeps only what the sync uses). */
function parseCredentials(target: CloudSyncTarget, credentials: unknown): object {
  const parsed = credentialsOfTarget[target].safeParse(credentials);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalid(`credentials.${issue.path.join('.')}: ${issue.message} (credentials of a ${target} pipeline)`, 'credentials', ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
}

async function assertNameFree(tx: Queryable, siteId: string, name: string, exceptId: string | null): Promise<void> {
  await lockUniqueValue(tx, siteId, 'cloud-sync-pipeline-name', name.toLowerCase());
  if (await pipelineNameTaken(tx, siteId, name, exceptId)) throw new AppError('CONFLICT', 'A cloud-sync pipeline with this name already exists', { path: ['body', 'name'] });
}

export async function createPipeline(context: AppContext, siteId: string, input: CreatePipelineInput, metadata: EventMetadata): Promise<PipelineView> {
  const { target, credentials, ...settings } = input;
  await checkCollections(context, siteId, settings.collections);
  checkTargetPath(target, settings.targetPath);
  const pipelineId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertNameFree(tx, siteId, settings.name, null);
    const sealed = await sealCredentials(context, tx, siteId, pipelineId, credentials);
    const head = await readFeedHead(tx, siteId);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: pipelineStream(siteId, pipelineId),
      decider: pipelineDecider,
      command: { type: 'createPipeline', pipelineId, target, settings: { ...settings, credentials: sealed }, startSeq: head.lastSeq },
      metadata,
    });
    return viewOf((await findPipeline(tx, siteId, pipelineId))!);
  });
}

export async function updatePipeline(context: AppContext, siteId: string, pipelineId: string, input: UpdatePipelineInput, metadata: EventMetadata): Promise<PipelineView> {
  const { credentials, ...settings } = input;
  if (settings.collections) await checkCollections(context, siteId, settings.collections);
  return inSiteTransaction(context, siteId, async (tx) => {
    const pipeline = await findPipeline(tx, siteId, pipelineId);
    if (!pipeline) throw errors.notFound('Cloud-sync pipeline not found');
    if (settings.targetPath !== undefined) checkTargetPath(pipeline.target, settings.targetPath);
    if (settings.name !== undefined) await assertNameFree(tx, siteId, settings.name, pipelineId);
    const changes: PipelineChanges = { ...settings };
    if (credentials !== undefined) {
      changes.credentials = await sealCredentials(context, tx, siteId, pipelineId, parseCredentials(pipeline.target, credentials));
      await destroyCredentials(tx, siteId, pipeline.credentials);
      await retryNow(tx, siteId, pipelineId);
    }
    await handleCommandIn(tx, context.projections, { siteId, streamId: pipelineStream(siteId, pipelineId), decider: pipelineDecider, command: { type: 'updatePipeline', changes }, metadata });
    return viewOf((await findPipeline(tx, siteId, pipelineId))!);
  });
}

export async function deletePipeline(context: AppContext, siteId: string, pipelineId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    const pipeline = await findPipeline(tx, siteId, pipelineId);
    if (!pipeline) throw errors.notFound('Cloud-sync pipeline not found');
    await handleCommandIn(tx, context.projections, { siteId, streamId: pipelineStream(siteId, pipelineId), decider: pipelineDecider, command: { type: 'deletePipeline' }, metadata });
    await destroyCredentials(tx, siteId, pipeline.credentials);
    await clearSyncState(tx, siteId, pipelineId);
  });
}
