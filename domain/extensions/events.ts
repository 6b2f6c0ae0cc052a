// Events of the extensions context (docs/extensions.md): a site's extension bundles, their state and
// the capabilities granted to them. An install or upgrade carries the signed bundle exactly as it was
// uploaded (its code included), so the log alone proves what ran and the code table derives from it.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

/** What a verified bundle brings into the log: its manifest, its signer, and the signed text itself. */
const bundleShape = {
  name: z.string(),
  version: z.string(),
  description: z.string().nullable(),
  entry: z.string(),
  /** What the bundle asks for (`items:read:<collection>`, `log`). */
  capabilities: z.array(z.string()),
  /** Its UI contributions for the Studio (`{ panels: [...] }`), or null. */
  ui: z.object({ panels: z.array(z.object({ id: z.string(), title: z.string(), location: z.string() }).loose()) }).loose().nullable(),
  /** The key of SVC_EXTENSION_TRUSTED_KEYS that signed it, and whether that key is an official one. */
  keyId: z.string(),
  official: z.boolean(),
  /** The detached Ed25519 signature (base64) over the bundle's UTF-8 bytes, and their sha256 (hex). */
  signature: z.string(),
  sha256: z.string(),
  /** The bundle as uploaded: `{ manifest, code }` as JSON text, byte for byte. */
  bundle: z.string(),
};

export const extensionEventSchemas = {
  'extension.installed': z.object({ extensionId: z.string(), ...bundleShape }),
  /** A higher version of the same name replaced the bundle; `granted` is what stays granted (what the new bundle still asks for). */
  'extension.upgraded': z.object({ extensionId: z.string(), previousVersion: z.string(), granted: z.array(z.string()), ...bundleShape }),
  'extension.enabled': z.object({ extensionId: z.string() }),
  'extension.disabled': z.object({ extensionId: z.string() }),
  /** The whole set granted now (it replaces the previous one). */
  'extension.capabilities_granted': z.object({ extensionId: z.string(), granted: z.array(z.string()) }),
};
export type ExtensionEvent = EventOf<typeof extensionEventSchemas>;
export type ExtensionBundleFacts = Omit<z.infer<(typeof extensionEventSchemas)['extension.installed']>, 'extensionId'>;
