// The settings the service knows: each with a zod schema its value must match and a default. An
// area that reads a setting defines it here (upload_policy for files, erasureDualControl for privacy,
// menus for delivery);
// any other key is free JSON under a size limit. Secrets never go in settings: keys that name one
// are refused, so a credential cannot end up in an export or a config manifest.
import { z } from 'zod';
import { originProblem } from '../../config/config.ts';

export interface SettingDefinition {
  schema: z.ZodType;
  default: unknown;
  description: string;
}

/** One entry of a delivery menu: a label and a target (a URL or a page's slug), with children up to three levels. */
interface MenuItem {
  label: string;
  url?: string | undefined;
  page?: string | undefined;
  children?: MenuItem[] | undefined;
}

const menuItem: z.ZodType<MenuItem> = z.lazy(() =>
  z
    .object({
      label: z.string().min(1).max(200),
      url: z.string().min(1).max(2_000).optional(),
      page: z.string().regex(/^[a-z0-9]+(?:[/_-][a-z0-9]+)*$/).max(200).optional(),
      children: z.array(menuItem).max(100).optional(),
    })
    .strict(),
);

/** Browser origins a site lets call its API with credentials (src/server/cors.ts); at most this many. */
export const CORS_ORIGINS_KEY = 'corsOrigins';
export const MAX_CORS_ORIGINS = 100;

const corsOrigin = z
  .string()
  .max(2_000)
  .superRefine((text, context) => {
    const problem =
      text === '*'
        ? 'A site lists exact origins: "*" would let every web page call the API with credentials (SVC_CORS_ORIGINS=* allows any origin without them)'
        : originProblem(text);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

export const KNOWN_SETTINGS: Readonly<Record<string, SettingDefinition>> = {
  menus: {
    schema: z.record(
      z.string().regex(/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/).max(100),
      z.object({ label: z.string().max(200).optional(), items: z.array(menuItem).max(200) }).strict(),
    ),
    default: {},
    description: 'Navigation menus served publicly by GET /deliver/menu/:key (docs/delivery.md), by key.',
  },
  upload_policy: {
    schema: z
      .object({
        maxBytes: z.number().int().positive(),
        allowedMimeTypes: z.array(z.string().min(1).max(255)).max(500),
        allowedExtensions: z.array(z.string().min(1).max(32)).max(500),
        catalogue: z.array(z.string().min(1).max(255)).max(500),
        // Re-encode raster originals without their metadata (EXIF, GPS, XMP, ICC); off: kept byte for byte.
        stripMetadata: z.boolean().optional(),
      })
      .strict(),
    default: { maxBytes: 26_214_400, allowedMimeTypes: [], allowedExtensions: [], catalogue: [] },
    description: 'What uploads a site takes (spec "Upload policy"); an empty list does not restrict.',
  },
  [CORS_ORIGINS_KEY]: {
    schema: z.array(corsOrigin).max(MAX_CORS_ORIGINS),
    default: [],
    description:
      'Browser origins (scheme://host[:port], e.g. https://app.example.com) allowed to call the API of this site with credentials, besides SVC_CORS_ORIGINS (docs/security.md, CORS).',
  },
  erasureDualControl: {
    schema: z.boolean(),
    default: true,
    description: 'Whether an erasure needs a second administrator to approve it.',
  },
  aiSeparateApprover: {
    schema: z.boolean(),
    default: false,
    description: 'Whether an AI approval must be decided by another person than the one whose agent asked for it (docs/ai-skills.md).',
  },
  agentVetoWindowSeconds: {
    schema: z.number().int().min(0).max(604_800),
    default: 600,
    description: 'How long a staged agent action waits for a veto before the scheduler runs it, in seconds (docs/agent-goals.md).',
  },
};

export const SETTING_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;
/** Key names that say the value is a secret. */
const SECRET_KEY = /secret|password|token|api_?key|credential|private_key/i;
export const FREE_SETTING_MAX_BYTES = 65_536;

export function isKnownSetting(key: string): boolean {
  return Object.hasOwn(KNOWN_SETTINGS, key);
}

/** What is wrong with a key, or null. */
export function keyProblem(key: string): string | null {
  if (!SETTING_KEY.test(key)) return 'A setting key is a letter then up to 99 letters, digits, _, . or -';
  if (SECRET_KEY.test(key)) return 'Secrets never go in settings: keep credentials in the environment or an integration';
  return null;
}

/** What is wrong with a value for `key`, as path (inside the value) and message, or null. */
export function valueProblem(key: string, value: unknown): { path: (string | number)[]; message: string } | null {
  if (value === null || value === undefined) return { path: [], message: 'A setting has a value (remove it to go back to its default)' };
  const known = KNOWN_SETTINGS[key];
  if (known) {
    const result = known.schema.safeParse(value);
    if (result.success) return null;
    const issue = result.error.issues[0]!;
    return { path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))), message: issue.message };
  }
  if (Buffer.byteLength(JSON.stringify(value)) > FREE_SETTING_MAX_BYTES) {
    return { path: [], message: `A setting's value is at most ${FREE_SETTING_MAX_BYTES} bytes of JSON` };
  }
  return null;
}
