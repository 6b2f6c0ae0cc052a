// Extension commands (docs/extensions.md): upload (a new name installs, a higher version of a name
// upgrades, same or lower is 409), enable, disable, and the grant of capabilities. The signature is
// checked over the bundle's exact bytes before anything in it is parsed.
import { randomUUID } from 'node:crypto';
import { checkNamespace, MAX_BUNDLE_BYTES, parseBundle } from '../../../domain/extensions/bundleFormat.ts';
import type { ExtensionBundleFacts } from '../../../domain/extensions/events.ts';
import { extensionDecider, type ExtensionCommand } from '../../../domain/extensions/extension.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { verifyBundleSignature } from '../../../infra/extensions/bundleSignature.ts';
import { parseTrustedKeys } from '../../../infra/extensions/trustedKeys.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { findExtension, findExtensionIdByName } from './queries.ts';
import type { ExtensionView, UploadInput } from './schemas.ts';

const extensionStream = (siteId: string, extensionId: string) => streamId(siteId, 'extension', extensionId);
const notFound = () => errors.notFound('Extension not found');

/** A verified, parsed bundle: what its install or upgrade event carries. */
function verifiedBundle(context: AppContext, input: UploadInput): ExtensionBundleFacts {
  const bytes = Buffer.from(input.bundle, 'utf8');
  if (bytes.length > MAX_BUNDLE_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `A bundle is at most ${MAX_BUNDLE_BYTES} bytes`, { path: ['body', 'bundle'] });
  const signer = verifyBundleSignature(bytes, input.signature, input.keyId, parseTrustedKeys(context.config.SVC_EXTENSION_TRUSTED_KEYS));
  const { manifest } = parseBundle(input.bundle);
  checkNamespace(manifest.name, signer.official);
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description ?? null,
    entry: manifest.entry,
    capabilities: manifest.capabilities,
    ui: manifest.ui ?? null,
    keyId: signer.keyId,
    official: signer.official,
    signature: input.signature!,
    sha256: signer.sha256,
    bundle: input.bundle,
  };
}

export async function uploadExtension(context: AppContext, siteId: string, input: UploadInput, metadata: EventMetadata): Promise<{ extension: ExtensionView; upgraded: boolean }> {
  const bundle = verifiedBundle(context, input);
  return inSiteTransaction(context, siteId, async (tx) => {
    // Uploads of one name queue here: the second sees the first's version.
    await lockUniqueValue(tx, siteId, 'extension-name', bundle.name);
    const existing = await findExtensionIdByName(tx, siteId, bundle.name);
    const extensionId = existing ?? randomUUID();
    const command: ExtensionCommand = existing ? { type: 'upgradeExtension', bundle } : { type: 'installExtension', extensionId, bundle };
    await handleCommandIn(tx, context.projections, { siteId, streamId: extensionStream(siteId, extensionId), decider: extensionDecider, command, metadata });
    return { extension: (await findExtension(tx, siteId, extensionId))!, upgraded: existing !== null };
  });
}

/** Runs a command on an extension of the site: 404 for an id the site does not have (another site's included). */
async function changeExtension(context: AppContext, siteId: string, extensionId: string, command: ExtensionCommand, metadata: EventMetadata): Promise<ExtensionView> {
  return inSiteTransaction(context, siteId, async (tx: Queryable) => {
    if (!(await findExtension(tx, siteId, extensionId))) throw notFound();
    await handleCommandIn(tx, context.projections, { siteId, streamId: extensionStream(siteId, extensionId), decider: extensionDecider, command, metadata });
    return (await findExtension(tx, siteId, extensionId))!;
  });
}

export const enableExtension = (context: AppContext, siteId: string, extensionId: string, metadata: EventMetadata) =>
  changeExtension(context, siteId, extensionId, { type: 'enableExtension' }, metadata);

export const disableExtension = (context: AppContext, siteId: string, extensionId: string, metadata: EventMetadata) =>
  changeExtension(context, siteId, extensionId, { type: 'disableExtension' }, metadata);

export const grantCapabilities = (context: AppContext, siteId: string, extensionId: string, capabilities: readonly string[], metadata: EventMetadata) =>
  changeExtension(context, siteId, extensionId, { type: 'grantCapabilities', capabilities }, metadata);
