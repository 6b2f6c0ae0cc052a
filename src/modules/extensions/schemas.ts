// The shapes of the extensions routes (docs/extensions.md): an extension as listed, the UI manifest of
// the Studio, the bodies of the capability grant and of a run, and a run's answer.
import { z } from 'zod';
import { DEFAULT_SANDBOX_LIMITS } from '../../../infra/extensions/sandbox.ts';
import { MAX_BUNDLE_BYTES, UI_LOCATIONS } from '../../../domain/extensions/bundleFormat.ts';

const uiPanelSchema = z.object({ id: z.string(), title: z.string(), location: z.enum(UI_LOCATIONS) });

export const extensionSchema = z.object({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  /** The exported function a run calls. */
  entry: z.string(),
  /** Signed by a key SVC_EXTENSION_TRUSTED_KEYS marks official. */
  official: z.boolean(),
  signerKeyId: z.string(),
  /** The sha256 (hex) of the signed bundle. */
  sha256: z.string(),
  capabilities: z.object({ requested: z.array(z.string()), granted: z.array(z.string()) }),
  /** What the bundle adds to the Studio: how many panels, and where (null: nothing). */
  ui: z.object({ panels: z.number(), locations: z.array(z.enum(UI_LOCATIONS)) }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ExtensionView = z.infer<typeof extensionSchema>;

export const uiManifestSchema = z.object({
  extensions: z.array(z.object({ id: z.string(), name: z.string(), version: z.string(), panels: z.array(uiPanelSchema) })),
});
export type UiManifest = z.infer<typeof uiManifestSchema>;

/** The upload command's input: what the multipart form carries (uploadForm.ts), the bundle as its UTF-8 text. */
export const uploadBody = z.strictObject({
  bundle: z.string().min(1).max(MAX_BUNDLE_BYTES),
  /** The detached Ed25519 signature over the bundle's bytes, base64 (checked by the handler: a missing one is `unsigned`). */
  signature: z.string().max(200).optional(),
  keyId: z.string().max(64).optional(),
});
export type UploadInput = z.infer<typeof uploadBody>;

export const grantBody = z.strictObject({ capabilities: z.array(z.string().max(200)).max(50) });

export const runBody = z.strictObject({
  /** What the entry function receives (any JSON; null when absent). */
  input: z.unknown().optional(),
  /** A shorter time limit than the service's, in milliseconds. */
  timeoutMs: z.number().int().min(100).max(DEFAULT_SANDBOX_LIMITS.timeoutMs).optional(),
});

export const runLogSchema = z.object({ level: z.literal('info'), message: z.string() });
export const runResultSchema = z.object({
  status: z.enum(['succeeded', 'failed']),
  output: z.unknown(),
  error: z.object({ kind: z.string(), message: z.string() }).nullable(),
  logs: z.array(runLogSchema),
  durationMs: z.number(),
});
export type RunResult = z.infer<typeof runResultSchema>;
