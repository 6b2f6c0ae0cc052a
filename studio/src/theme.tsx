// Light and dark themes: the user's choice (their `appearance` preference), else the site's
// `defaultAppearance`, else the system's. The site's `themeOverrides` (whitelisted tokens, 'H S% L%')
// and `branding.brandColor` are set as CSS custom properties through the CSSOM, which the Content
// Security Policy allows (no inline style sheet).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { useSession } from './session.tsx';

export type Appearance = 'auto' | 'light' | 'dark';

interface SiteLook {
  name?: string | null;
  displayTitle?: string | null;
  defaultAppearance?: Appearance | null;
  defaultSaveAction?: 'stay' | 'return' | 'create_new' | null;
  branding?: { logoUrl?: string | null; brandColor?: string | null } | null;
  themeOverrides?: { light?: Record<string, string>; dark?: Record<string, string> } | null;
}

interface Theme {
  site: SiteLook | null;
  choice: Appearance;
  mode: 'light' | 'dark';
  setChoice(choice: Appearance): void;
}

const ThemeContext = createContext<Theme | null>(null);

export function useTheme(): Theme {
  const theme = useContext(ThemeContext);
  if (!theme) throw new Error('useTheme outside ThemeProvider');
  return theme;
}

const darkQuery = typeof window === 'undefined' ? null : window.matchMedia('(prefers-color-scheme: dark)');
const subscribeDark = (notify: () => void) => {
  darkQuery?.addEventListener('change', notify);
  return () => darkQuery?.removeEventListener('change', notify);
};

/** `#rrggbb` to the 'H S% L%' the tokens use; null for anything else. */
export function hexToHsl(hex: string): string | null {
  const match = /^#([0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return null;
  const value = parseInt(match[1]!, 16);
  const [r, g, b] = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map((c) => c / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  let h = 0;
  if (d !== 0) h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  const round = (n: number) => Math.round(n * 10) / 10;
  return `${round((h * 60 + 360) % 360)} ${round(s * 100)}% ${round(l * 100)}%`;
}

export function ThemeProvider({ children }: { children: ReactNode }) {
  const { client, user } = useSession();
  const queryClient = useQueryClient();
  const systemDark = useSyncExternalStore(subscribeDark, () => darkQuery?.matches ?? false);
  const site = useQuery({
    queryKey: ['site'],
    enabled: user !== null,
    queryFn: async () => (await client.api.GET('/api/v1/site')).data!.data as SiteLook,
  });
  const preferences = useQuery({
    queryKey: ['me', 'preferences'],
    enabled: user !== null,
    queryFn: async () => (await client.api.GET('/api/v1/me/preferences')).data!.data as Record<string, unknown>,
  });
  const save = useMutation({
    mutationFn: async (appearance: Appearance) => (await client.api.PATCH('/api/v1/me/preferences', { body: { appearance } })).data!.data,
    onSuccess: (data) => queryClient.setQueryData(['me', 'preferences'], data),
  });

  const preferred = preferences.data?.appearance;
  const choice: Appearance = preferred === 'light' || preferred === 'dark' || preferred === 'auto' ? preferred : (site.data?.defaultAppearance ?? 'auto');
  const mode = choice === 'auto' ? (systemDark ? 'dark' : 'light') : choice;

  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = mode;
    root.style.colorScheme = mode;
    const overrides = site.data?.themeOverrides?.[mode] ?? {};
    const brand = site.data?.branding?.brandColor ? hexToHsl(site.data.branding.brandColor) : null;
    const set: string[] = [];
    if (brand) {
      root.style.setProperty('--primary', brand);
      set.push('--primary');
    }
    for (const [token, value] of Object.entries(overrides)) {
      // Only the service's whitelisted token names reach here; the check keeps a stray name out anyway.
      if (!/^[a-z-]{1,40}$/.test(token)) continue;
      root.style.setProperty(`--${token}`, value);
      set.push(`--${token}`);
    }
    document.title = site.data?.displayTitle || site.data?.name ? `${site.data.displayTitle || site.data.name} · Studio` : 'Studio';
    return () => set.forEach((property) => root.style.removeProperty(property));
  }, [mode, site.data]);

  const value = useMemo<Theme>(() => ({ site: site.data ?? null, choice, mode, setChoice: (next) => save.mutate(next) }), [site.data, choice, mode, save]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}
