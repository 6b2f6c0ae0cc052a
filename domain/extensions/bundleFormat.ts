// The extension bundle format (docs/extensions.md): UTF-8 JSON `{ manifest, code }`. Parsing checks
// the manifest's rules (names, semantic versions, the capabilities this service implements, UI
// contributions) and the reserved official namespace. Pure: the signature over the bytes is checked
// before any of this runs (infra/extensions/bundleSignature.ts).
import { z } from 'zod';
import { AppError } from '../shared/appError.ts';
import { CAPABILITY_PATTERN } from './capabilities.ts';

/** The largest bundle accepted, in bytes (the code is inside it). */
export const MAX_BUNDLE_BYTES = 1024 * 1024;
/** Names under this scope are the service's own: only a key marked official may sign them. */
export const OFFICIAL_NAMESPACE = '@svc/';
/** Where the Studio may show an extension's panel. */
export const UI_LOCATIONS = ['dashboard', 'item.sidebar', 'collection.toolbar', 'settings', 'navigation'] as const;

/** npm-like: an optional `@scope/`, then lowercase letters, digits, `.`, `_` and `-`. */
const NAME = /^(?:@[a-z0-9][a-z0-9-]{0,62}\/)?[a-z0-9][a-z0-9._-]{0,99}$/;
/** Semantic versioning 2.0: MAJOR.MINOR.PATCH with an optional pre-release (build metadata is not taken). */
const VERSION = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-((?:0|[1-9]\d{0,8}|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d{0,8}|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

const uniqueBy = <T>(key: (value: T) => string) => (values: T[], context: z.RefinementCtx) => {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(key(value))) context.addIssue({ code: 'custom', message: `"${key(value)}" is listed twice`, path: [index] });
    seen.add(key(value));
  });
};

const uiPanel = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and "-", at most 64'),
  title: z.string().trim().min(1).max(100),
  location: z.enum(UI_LOCATIONS),
});

export const manifestSchema = z.strictObject({
  name: z.string().max(164).regex(NAME, 'an npm-like name: an optional @scope/, then lowercase letters, digits, ".", "_" and "-"'),
  version: z.string().max(64).regex(VERSION, 'a semantic version such as 1.2.0 or 2.0.0-beta.1'),
  description: z.string().trim().max(500).optional(),
  capabilities: z
    .array(z.string().regex(CAPABILITY_PATTERN, 'a capability this service offers: "log" or "items:read:<collection>"'))
    .max(50)
    .superRefine(uniqueBy((capability) => capability))
    .default([]),
  ui: z.strictObject({ panels: z.array(uiPanel).max(20).superRefine(uniqueBy((panel) => panel.id)).default([]) }).optional(),
  /** The name of the function `module.exports` holds that a run calls. */
  entry: z.string().regex(IDENTIFIER, 'a JavaScript identifier: the exported function a run calls'),
});

const bundleSchema = z.strictObject({ manifest: manifestSchema, code: z.string().min(1, 'the bundle has no code') });

export type ExtensionManifest = z.infer<typeof manifestSchema>;
export interface ParsedBundle {
  manifest: ExtensionManifest;
  code: string;
}

const atBundle = (path: PropertyKey[], message: string, reason: string) =>
  new AppError('VALIDATION_FAILED', message, { path: ['body', 'bundle', ...path.map((part) => (typeof part === 'number' ? part : String(part)))], extensions: { reason } });

/** The bundle's JSON text, parsed and checked; 400 VALIDATION_FAILED at `body.bundle.<path>` with `extensions.reason: invalid_bundle`. */
export function parseBundle(text: string): ParsedBundle {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw atBundle([], `The bundle is not JSON: ${(error as Error).message}`, 'invalid_bundle');
  }
  const parsed = bundleSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw atBundle(issue.path, `bundle.${issue.path.join('.')}: ${issue.message}`, 'invalid_bundle');
  }
  return parsed.data;
}

/** The reserved namespace: a name under `@svc/` needs a bundle signed by an official key (400 `reserved_namespace`). */
export function checkNamespace(name: string, official: boolean): void {
  if (name.startsWith(OFFICIAL_NAMESPACE) && !official) {
    throw atBundle(['manifest', 'name'], `"${OFFICIAL_NAMESPACE}" is the reserved official namespace: a community bundle cannot use it`, 'reserved_namespace');
  }
}

/** Semantic-version precedence: negative when `a` is lower than `b`, 0 when equal, positive when higher. */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = splitVersion(a);
  const [coreB = '', preB] = splitVersion(b);
  const numbersA = coreA.split('.').map(Number);
  const numbersB = coreB.split('.').map(Number);
  for (let index = 0; index < 3; index += 1) {
    const difference = (numbersA[index] ?? 0) - (numbersB[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  const partsA = preA.split('.');
  const partsB = preB.split('.');
  for (let index = 0; index < Math.max(partsA.length, partsB.length); index += 1) {
    const left = partsA[index];
    const right = partsB[index];
    if (left === undefined || right === undefined) return left === undefined ? -1 : 1;
    if (left === right) continue;
    const numericLeft = /^\d+$/.test(left);
    const numericRight = /^\d+$/.test(right);
    if (numericLeft && numericRight) return Math.sign(Number(left) - Number(right));
    if (numericLeft !== numericRight) return numericLeft ? -1 : 1;
    return left < right ? -1 : 1;
  }
  return 0;
}

function splitVersion(version: string): [string, string | undefined] {
  const dash = version.indexOf('-');
  return dash === -1 ? [version, undefined] : [version.slice(0, dash), version.slice(dash + 1)];
}
