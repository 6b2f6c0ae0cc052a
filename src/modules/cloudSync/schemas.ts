// The shapes of the cloud-sync routes: a pipeline's body (credentials by target), its answer, its log.
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';

const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Path segments of letters, digits, `_` and `-`, where `{collection}` may stand for a part. */
const TARGET_PATH = /^(?:[A-Za-z0-9_-]|\{collection\})+(?:\/(?:[A-Za-z0-9_-]|\{collection\})+)*$/;

function parsesAsPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** A service account of the document database (Google's JSON key file; its other keys are accepted and dropped). */
export const serviceAccountCredentials = z
  .looseObject({
    project_id: z.string().min(1).max(200),
    client_email: z.email().max(320),
    private_key: z.string().min(1).max(10_000).refine(parsesAsPrivateKey, 'is not an RSA private key in PEM form'),
  })
  .transform(({ project_id, client_email, private_key }) => ({ project_id, client_email, private_key }));
export type ServiceAccountCredentials = z.infer<typeof serviceAccountCredentials>;

export const realtimeDatabaseCredentials = z.strictObject({
  databaseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .refine((url) => {
      const parsed = new URL(url);
      return !parsed.username && !parsed.password && !parsed.search && !parsed.hash;
    }, 'must be the database URL alone, without credentials, query or fragment'),
  secret: z.string().min(1).max(1000),
});
export type RealtimeDatabaseCredentials = z.infer<typeof realtimeDatabaseCredentials>;

export const credentialsOfTarget = { firestore: serviceAccountCredentials, realtime_database: realtimeDatabaseCredentials } as const;

const settingsFields = {
  name: z.string().trim().min(1).max(200),
  projectId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'letters, digits, ".", "_" and "-", at most 128'),
  collections: z.array(z.string().regex(COLLECTION_NAME, 'is not a collection name')).min(1).max(100),
  targetPath: z.string().max(256).regex(TARGET_PATH, 'path segments of letters, digits, "_", "-" and {collection}, joined by "/"'),
  syncOnCreate: z.boolean(),
  syncOnUpdate: z.boolean(),
  syncOnDelete: z.boolean(),
};

const createDefaults = {
  ...settingsFields,
  targetPath: settingsFields.targetPath.default('{collection}'),
  syncOnCreate: settingsFields.syncOnCreate.default(true),
  syncOnUpdate: settingsFields.syncOnUpdate.default(true),
  syncOnDelete: settingsFields.syncOnDelete.default(true),
};

export const createPipelineBody = z.discriminatedUnion('target', [
  z.strictObject({ target: z.literal('firestore'), credentials: serviceAccountCredentials, ...createDefaults }),
  z.strictObject({ target: z.literal('realtime_database'), credentials: realtimeDatabaseCredentials, ...createDefaults }),
]);
export type CreatePipelineInput = z.infer<typeof createPipelineBody>;

/** A change of settings, or new credentials of the pipeline's target (checked against it by the handler). */
export const updatePipelineBody = z.strictObject({
  ...Object.fromEntries(Object.entries(settingsFields).map(([key, schema]) => [key, schema.optional()])),
  credentials: z.record(z.string(), z.unknown()).optional(),
}) as z.ZodType<Partial<{ [K in keyof typeof settingsFields]: z.infer<(typeof settingsFields)[K]> }> & { credentials?: Record<string, unknown> }>;
export type UpdatePipelineInput = z.infer<typeof updatePipelineBody>;

export const pipelineSchema = z.object({
  id: z.string(),
  name: z.string(),
  target: z.enum(['firestore', 'realtime_database']),
  status: z.literal('active'),
  projectId: z.string(),
  collections: z.array(z.string()),
  targetPath: z.string(),
  syncOnCreate: z.boolean(),
  syncOnUpdate: z.boolean(),
  syncOnDelete: z.boolean(),
  lastSyncAt: z.string().nullable(),
  lastSyncItemCount: z.number().nullable(),
  consecutiveFailures: z.number(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const syncAttemptSchema = z.object({
  attempt: z.number(),
  at: z.string(),
  kind: z.enum(['sync', 'backfill']),
  status: z.enum(['succeeded', 'partial', 'failed']),
  items: z.number(),
  failed: z.number(),
  error: z.string().nullable(),
  durationMs: z.number(),
});

export const backfillResultSchema = z.object({ scanned: z.number(), pushed: z.number(), failed: z.number(), truncated: z.boolean() });
export type BackfillResult = z.infer<typeof backfillResultSchema>;
