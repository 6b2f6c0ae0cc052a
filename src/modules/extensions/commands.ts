// The extensions area's commands (the command registry, docs/architecture.md): upload a signed bundle,
// enable, disable, grant capabilities; and run, bound to the area's runtime (its sandbox). All are a
// site administrator's; each but the run changes what third-party code may do: dangerous.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import type { ExtensionsRuntime } from './extensionsRuntime.ts';
import { disableExtension, enableExtension, grantCapabilities, uploadExtension } from './handlers.ts';
import { runExtension } from './runExtension.ts';
import { grantBody, runBody, uploadBody, type RunResult } from './schemas.ts';

const idInput = z.object({ id: z.string() });
const extensionId = (id: string) => uuidOr404(id, 'Extension');

const upload = defineCommand({
  name: 'extensions.upload',
  description:
    'Install a signed extension bundle (`{ bundle, signature, keyId }`: the bundle’s JSON text, the base64 Ed25519 signature over its UTF-8 bytes, the trusted key that made it). ' +
    'A higher version of an installed name upgrades it; the same or a lower one is 409. Installed disabled, nothing granted.',
  input: uploadBody,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => uploadExtension(context, siteId, input, metadata),
});

const enable = defineCommand({
  name: 'extensions.enable',
  description: 'Enable an extension: it may be run, and its UI panels are in the Studio’s manifest.',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => enableExtension(context, siteId, extensionId(input.id), metadata),
});

const disable = defineCommand({
  name: 'extensions.disable',
  description: 'Disable an extension: it is not run, and its UI panels leave the Studio’s manifest.',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => disableExtension(context, siteId, extensionId(input.id), metadata),
});

const grant = defineCommand({
  name: 'extensions.grantCapabilities',
  description: 'Set the capabilities granted to an extension: a subset of what its bundle asks for (the whole set; [] revokes all).',
  input: grantBody.extend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => grantCapabilities(context, siteId, extensionId(input.id), input.capabilities, metadata),
});

export const extensionCommands = { upload, enable, disable, grant };

/** The run, with the runtime's sandbox. */
export function extensionRuntimeCommands(runtime: ExtensionsRuntime) {
  const run = defineCommand({
    name: 'extensions.run',
    description:
      'Run an enabled extension’s entry function with `input` in the sandbox (a separate process with time and memory limits); its API calls are served with its grants and the caller’s permissions. ' +
      'Answers `{ status, output, error, logs, durationMs }`.',
    input: runBody.extend({ id: z.string() }),
    access: 'siteAdmin',
    dangerous: false,
    handler: (context, { siteId, principal, metadata, access, client, input }): Promise<RunResult> =>
      runExtension(context, runtime.sandbox, { siteId, principal, metadata, access, client }, extensionId(input.id), { input: input.input, timeoutMs: input.timeoutMs }),
  });
  return { run };
}
