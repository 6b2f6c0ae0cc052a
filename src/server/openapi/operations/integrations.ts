// Integrations: cloud-sync pipelines (docs/integrations.md).
import { z } from 'zod';
import { backfillResultSchema, pipelineSchema, syncAttemptSchema } from '../../../modules/cloudSync/schemas.ts';
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent, pageMeta } from './shapes.ts';

const bodyRules =
  'A body or credentials that do not match the target (a service account `{ project_id, client_email, private_key }` for `firestore`, ' +
  '`{ databaseUrl, secret }` for `realtime_database`), an unknown collection or a target path the target cannot take: 400 `VALIDATION_ERROR` with its path. ' +
  'Credentials are sealed and never answered; when the site’s encryption key has no bytes: 400 `ENCRYPTION_KEY_REQUIRED`.';

export const integrationOperations: OperationCatalogue = {
  'GET /cloud-sync/pipelines': { summary: 'List cloud-sync pipelines', description: 'Oldest first, paged. Never their credentials.', response: { data: z.array(pipelineSchema), meta: pageMeta } },
  'POST /cloud-sync/pipelines': {
    summary: 'Create a cloud-sync pipeline',
    description: `Pushes the listed collections’ item creates, updates and deletes (as \`syncOn*\` say) to a document database or a realtime database, from the change feed’s head at creation. ${bodyRules} A taken name is 409.`,
    errors: ['VALIDATION_ERROR', 'ENCRYPTION_KEY_REQUIRED', 'CONFLICT'],
  },
  'GET /cloud-sync/pipelines/{id}': { summary: 'One cloud-sync pipeline', response: { data: pipelineSchema } },
  'PATCH /cloud-sync/pipelines/{id}': {
    summary: 'Change a cloud-sync pipeline, or rotate its credentials',
    description: `Any setting, or \`credentials\` of the pipeline’s target (the old sealed value is destroyed; a pipeline waiting out a failure tries again at once). The target cannot change. ${bodyRules}`,
    errors: ['VALIDATION_ERROR', 'ENCRYPTION_KEY_REQUIRED', 'CONFLICT'],
  },
  'DELETE /cloud-sync/pipelines/{id}': { summary: 'Delete a cloud-sync pipeline', response: noContent('The pipeline, its attempt log, its sync state and its sealed credentials are gone.') },
  'GET /cloud-sync/pipelines/{id}/log': {
    summary: 'A cloud-sync pipeline’s recent attempts',
    description: 'Newest first (`limit` 1–200, default 50); the last 1,000 are kept.',
    response: { data: z.array(syncAttemptSchema) },
  },
  'POST /cloud-sync/pipelines/{id}/backfill': {
    summary: 'Push every current item of a pipeline’s collections',
    description: 'In batches, at most `SVC_CLOUD_SYNC_BACKFILL_LIMIT` items a call; `truncated: true` when it stopped at that bound or at a failed batch, and the next call resumes there.',
    response: { data: backfillResultSchema },
  },
};
