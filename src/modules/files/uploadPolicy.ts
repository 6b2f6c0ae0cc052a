// A site's upload policy (spec "Upload policy"): its `upload_policy` setting when it has one, else
// the environment's FILE_UPLOAD_MAX_BYTES / FILE_UPLOAD_ALLOWED_MIME_TYPES / FILE_UPLOAD_ALLOWED_EXTENSIONS
// (each where set), else the default (25 MiB, no list restricting). PUT /uploads/config writes the setting.
// `stripMetadata` (off unless the setting says true) makes the guard re-encode raster originals without
// their metadata; without it an original is kept byte for byte.
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Config } from '../../config/config.ts';
import type { AppContext } from '../../runtime/context.ts';
import { KNOWN_SETTINGS } from '../settings/catalogue.ts';
import { readStoredSettings, writeSettings } from '../settings/settingsStore.ts';

/** The policy as the setting stores it: `stripMetadata` only where it was set. */
interface StoredUploadPolicy {
  maxBytes: number;
  allowedMimeTypes: string[];
  allowedExtensions: string[];
  catalogue: string[];
  stripMetadata?: boolean;
}

/** The policy in force. */
export interface SiteUploadPolicy extends StoredUploadPolicy {
  stripMetadata: boolean;
}

export const UPLOAD_POLICY_KEY = 'upload_policy';
const DEFAULT_POLICY = KNOWN_SETTINGS[UPLOAD_POLICY_KEY]!.default as StoredUploadPolicy;

const list = (text: string | undefined) =>
  text === undefined ? undefined : text.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);

/** The environment's policy over the default, field by field. */
export function environmentPolicy(config: Pick<Config, 'FILE_UPLOAD_MAX_BYTES' | 'FILE_UPLOAD_ALLOWED_MIME_TYPES' | 'FILE_UPLOAD_ALLOWED_EXTENSIONS'>): SiteUploadPolicy {
  return {
    maxBytes: config.FILE_UPLOAD_MAX_BYTES ?? DEFAULT_POLICY.maxBytes,
    allowedMimeTypes: list(config.FILE_UPLOAD_ALLOWED_MIME_TYPES) ?? DEFAULT_POLICY.allowedMimeTypes,
    allowedExtensions: list(config.FILE_UPLOAD_ALLOWED_EXTENSIONS) ?? DEFAULT_POLICY.allowedExtensions,
    catalogue: DEFAULT_POLICY.catalogue,
    stripMetadata: false,
  };
}

async function storedPolicy(context: Pick<AppContext, 'database'>, siteId: string): Promise<StoredUploadPolicy | undefined> {
  const stored = await context.database.withSiteReads(siteId, (tx) => readStoredSettings(tx, siteId));
  return stored.find((entry) => entry.key === UPLOAD_POLICY_KEY)?.value as StoredUploadPolicy | undefined;
}

export async function uploadPolicyOf(context: Pick<AppContext, 'database' | 'config'>, siteId: string): Promise<SiteUploadPolicy> {
  const setting = await storedPolicy(context, siteId);
  return setting ? { ...setting, stripMetadata: setting.stripMetadata ?? false } : environmentPolicy(context.config);
}

/**
 * PUT /uploads/config: the given fields over the policy in force, stored as the site's setting
 * (validated by its schema). `stripMetadata` is stored once a caller sets it; until then it is off.
 */
export async function setUploadPolicy(
  context: Pick<AppContext, 'database' | 'config' | 'projections'>,
  siteId: string,
  changes: Partial<SiteUploadPolicy>,
  metadata: EventMetadata,
): Promise<SiteUploadPolicy> {
  const { maxBytes, allowedMimeTypes, allowedExtensions, catalogue } = environmentPolicy(context.config);
  const policy: StoredUploadPolicy = { ...((await storedPolicy(context, siteId)) ?? { maxBytes, allowedMimeTypes, allowedExtensions, catalogue }), ...changes };
  await writeSettings(context, { siteId, set: { [UPLOAD_POLICY_KEY]: policy }, remove: [], metadata, path: ['body'], valuePath: () => ['body'] });
  return { ...policy, stripMetadata: policy.stripMetadata ?? false };
}
