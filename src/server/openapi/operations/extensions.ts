// Extensions (docs/extensions.md): signed bundles, their state and grants, the Studio's UI manifest, runs.
import type { OperationCatalogue } from '../operationEntry.ts';

const signing =
  'The bundle is UTF-8 JSON `{ manifest: { name, version, description?, capabilities, ui?, entry }, code }` (at most 1 MiB: 413 `PAYLOAD_TOO_LARGE`), sent as the `bundle` file part of a ' +
  '`multipart/form-data` form with the `signature` field (base64 of the detached Ed25519 signature over the bundle’s exact bytes) and the `keyId` field (a key of `SVC_EXTENSION_TRUSTED_KEYS`). ' +
  'An unsigned bundle, an untrusted signer or a signature that does not verify is 400 `VALIDATION_FAILED` at `body.signature` or `body.keyId` with `extensions.reason` ' +
  '`unsigned`, `untrusted_signer` or `bad_signature`; a malformed bundle is 400 at `body.bundle.<path>` (`invalid_bundle`); a name under the reserved `@svc/` namespace signed by a key not marked official is 400 `reserved_namespace`.';

export const extensionOperations: OperationCatalogue = {
  'GET /extensions': {
    summary: 'List the site’s extensions',
    description: 'Oldest first, paged: name, version, status, signer, capabilities requested and granted, a summary of the UI contributions. Never the code.',
  },
  'POST /extensions/upload': {
    summary: 'Upload a signed extension bundle',
    description: `${signing} A new name is installed disabled with nothing granted (201); a higher semantic version of an installed name upgrades it (200: what it still asks for stays granted); the same or a lower version is 409.`,
    errors: ['VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'CONFLICT'],
  },
  'GET /extensions/ui/manifest': {
    summary: 'The enabled extensions’ UI panels, for the Studio',
    description: 'Any signed-in caller of the site may read it: each enabled extension with panels, and its panels (`id`, `title`, `location`).',
  },
  'POST /extensions/{id}/enable': { summary: 'Enable an extension', description: 'It may be run and its panels are in the UI manifest; enabling an enabled one changes nothing.' },
  'POST /extensions/{id}/disable': { summary: 'Disable an extension', description: 'It is not run and its panels leave the UI manifest; disabling a disabled one changes nothing.' },
  'POST /extensions/{id}/capabilities': {
    summary: 'Grant capabilities to an extension',
    description: 'The whole granted set (`[]` revokes all): a subset of what the bundle asks for; a capability it does not ask for is 400 at `body.capabilities.<index>`.',
  },
  'POST /extensions/{id}/run': {
    summary: 'Run an enabled extension',
    description:
      'Calls the bundle’s entry function with `input` in the sandbox: a separate process under Node’s permission model, a vm context with no host objects, a time limit (5 s, or a shorter `timeoutMs`) and a 64 MiB heap. ' +
      'Its API calls are served with its grants and the caller’s permissions. A run that fails is an answer: `status: failed` with `error.kind` (`error`, `timeout`, `memory_limit`, `call_limit`, `output_too_large`, `crashed`, `sandbox_unavailable`). A disabled extension is 409.',
    errors: ['CONFLICT'],
  },
};
