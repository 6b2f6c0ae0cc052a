// What /site takes and answers. An empty string clears a nullable field; every rule answers 400
// VALIDATION_FAILED at the offending field's path (domain/sites/siteConfig.ts has the rules).
import { z } from 'zod';
import {
  APPEARANCES,
  BRAND_COLOR,
  CUSTOM_CSS_MAX_BYTES,
  isHostname,
  isHslTriple,
  isHttpUrl,
  SAVE_ACTIONS,
  THEME_TOKENS,
} from '../../../domain/sites/siteConfig.ts';

const emptyIsNull = (value: unknown) => (value === '' ? null : value);
const nullableText = (max: number) => z.preprocess(emptyIsNull, z.string().max(max).nullable());
const httpUrl = z.preprocess(emptyIsNull, z.string().max(2048).refine(isHttpUrl, 'An http(s) URL').nullable());

const tokens: ReadonlySet<string> = new Set(THEME_TOKENS);
const themeMode = z.record(z.string(), z.unknown()).superRefine((map, context) => {
  for (const [token, value] of Object.entries(map)) {
    if (!tokens.has(token)) {
      context.addIssue({ code: 'custom', path: [token], message: `Not a theme token: use one of ${THEME_TOKENS.join(', ')}` });
    } else if (typeof value !== 'string' || !isHslTriple(value)) {
      context.addIssue({ code: 'custom', path: [token], message: "A theme value is 'H S% L%' (hue 0–360, saturation and lightness 0–100 %)" });
    }
  }
}) as unknown as z.ZodType<Record<string, string>>;

const siteFields = {
  name: z.string().trim().min(1).max(200),
  displayTitle: nullableText(200),
  siteUrl: httpUrl,
  descriptor: nullableText(1000),
  domain: z.preprocess(
    (value) => (value === '' ? null : typeof value === 'string' ? value.trim().toLowerCase() : value),
    z.string().refine(isHostname, 'A host name such as news.example.com').nullable(),
  ),
  defaultLanguage: z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'A language tag such as en or pt-BR'),
  defaultAppearance: z.enum(APPEARANCES),
  defaultSaveAction: z.enum(SAVE_ACTIONS),
  branding: z
    .object({
      logoUrl: httpUrl,
      faviconUrl: httpUrl,
      brandColor: z.preprocess(emptyIsNull, z.string().regex(BRAND_COLOR, 'A colour such as #1a2b3c').nullable()),
    })
    .partial()
    .strict(),
  themeOverrides: z.preprocess(emptyIsNull, z.object({ light: themeMode, dark: themeMode }).partial().strict().nullable()),
  customCss: z.preprocess(
    emptyIsNull,
    z.string().refine((css) => Buffer.byteLength(css) <= CUSTOM_CSS_MAX_BYTES, `At most ${CUSTOM_CSS_MAX_BYTES} bytes of CSS`).nullable(),
  ),
};
const FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(siteFields));

/** PATCH /site: any subset of the fields; an unknown one is refused at its own path. */
export const siteChangesSchema = z
  .looseObject(Object.fromEntries(Object.entries(siteFields).map(([name, schema]) => [name, schema.optional()])) as {
    [Name in keyof typeof siteFields]: z.ZodOptional<(typeof siteFields)[Name]>;
  })
  .superRefine((body, context) => {
    for (const name of Object.keys(body)) {
      if (!FIELD_NAMES.has(name)) context.addIssue({ code: 'custom', path: [name], message: `Not a site field: ${name}` });
    }
  });

export const siteSchema = z.object({
  id: z.string(),
  name: z.string(),
  displayTitle: z.string().nullable(),
  siteUrl: z.string().nullable(),
  descriptor: z.string().nullable(),
  domain: z.string().nullable(),
  defaultLanguage: z.string(),
  defaultAppearance: z.enum(APPEARANCES),
  defaultSaveAction: z.enum(SAVE_ACTIONS),
  branding: z.object({ logoUrl: z.string().nullable(), faviconUrl: z.string().nullable(), brandColor: z.string().nullable() }),
  themeOverrides: z.object({ light: z.record(z.string(), z.string()), dark: z.record(z.string(), z.string()) }),
  customCss: z.string().nullable(),
  createdAt: z.string(),
});
export type SiteView = z.infer<typeof siteSchema>;
