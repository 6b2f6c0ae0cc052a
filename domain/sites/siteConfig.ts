// A site's configuration (spec "Site configuration"): the fields, their rules, and how a change
// applies to the current configuration. Pure: the routes check input with these rules, the decider
// keeps only what changes, the projection stores the result.
import { z } from 'zod';

export const APPEARANCES = ['auto', 'light', 'dark'] as const;
export const SAVE_ACTIONS = ['stay', 'return', 'create_new'] as const;

/**
 * The CSS tokens a theme may override, per mode (the admin app's design tokens, the names shadcn/ui
 * uses). Anything else is refused: overrides are data for a stylesheet, never CSS.
 */
export const THEME_TOKENS = [
  'background', 'foreground', 'card', 'card-foreground', 'popover', 'popover-foreground',
  'primary', 'primary-foreground', 'secondary', 'secondary-foreground', 'muted', 'muted-foreground',
  'accent', 'accent-foreground', 'destructive', 'destructive-foreground', 'border', 'input', 'ring',
] as const;

export const CUSTOM_CSS_MAX_BYTES = 65_536;

/** `H S% L%`: hue 0–360, saturation and lightness 0–100 %, decimals allowed (e.g. `222.2 47.4% 11.2%`). */
const HSL = /^(\d{1,3}(?:\.\d+)?) (\d{1,3}(?:\.\d+)?)% (\d{1,3}(?:\.\d+)?)%$/;

export function isHslTriple(value: string): boolean {
  const match = HSL.exec(value);
  if (!match) return false;
  const [hue, saturation, lightness] = match.slice(1).map(Number) as [number, number, number];
  return hue <= 360 && saturation <= 100 && lightness <= 100;
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export function isHostname(value: string): boolean {
  return HOSTNAME.test(value);
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const BRAND_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export type ThemeMode = 'light' | 'dark';
export type ThemeOverrides = Record<ThemeMode, Record<string, string>>;

export interface Branding {
  logoUrl: string | null;
  faviconUrl: string | null;
  brandColor: string | null;
}

export interface SiteConfig {
  name: string;
  displayTitle: string | null;
  siteUrl: string | null;
  descriptor: string | null;
  domain: string | null;
  defaultLanguage: string;
  defaultAppearance: (typeof APPEARANCES)[number];
  defaultSaveAction: (typeof SAVE_ACTIONS)[number];
  branding: Branding;
  themeOverrides: ThemeOverrides;
  customCss: string | null;
}

/** A change to the configuration: the fields given, branding and theme modes merged into the current ones. */
export const siteConfigChangesSchema = z
  .object({
    name: z.string(),
    displayTitle: z.string().nullable(),
    siteUrl: z.string().nullable(),
    descriptor: z.string().nullable(),
    domain: z.string().nullable(),
    defaultLanguage: z.string(),
    defaultAppearance: z.enum(APPEARANCES),
    defaultSaveAction: z.enum(SAVE_ACTIONS),
    branding: z.object({ logoUrl: z.string().nullable(), faviconUrl: z.string().nullable(), brandColor: z.string().nullable() }).partial(),
    /** Modes given replace that mode's map; null clears both. */
    themeOverrides: z.object({ light: z.record(z.string(), z.string()), dark: z.record(z.string(), z.string()) }).partial().nullable(),
    customCss: z.string().nullable(),
  })
  .partial();
export type SiteConfigChanges = z.infer<typeof siteConfigChangesSchema>;

export function initialSiteConfig(name: string): SiteConfig {
  return {
    name,
    displayTitle: null,
    siteUrl: null,
    descriptor: null,
    domain: null,
    defaultLanguage: 'en',
    defaultAppearance: 'auto',
    defaultSaveAction: 'stay',
    branding: { logoUrl: null, faviconUrl: null, brandColor: null },
    themeOverrides: { light: {}, dark: {} },
    customCss: null,
  };
}

/** The configuration after a change. */
export function applySiteConfigChanges(config: SiteConfig, changes: SiteConfigChanges): SiteConfig {
  const { branding, themeOverrides, ...plain } = changes;
  const next: SiteConfig = { ...config, ...plain };
  if (branding) next.branding = { ...config.branding, ...branding };
  if (themeOverrides === null) next.themeOverrides = { light: {}, dark: {} };
  else if (themeOverrides) next.themeOverrides = { ...config.themeOverrides, ...themeOverrides };
  return next;
}
