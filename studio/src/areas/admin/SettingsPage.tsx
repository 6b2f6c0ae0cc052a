// The site's configuration (GET/PATCH /site: name, titles, language, appearance, save action,
// branding, theme overrides per token) and its key/value settings.
import { SvcError } from '@svc-cms/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Field, PageHeader, QueryState } from '../../ui/parts.tsx';
import { AdminOnly, GeneralErrors, useFormErrors } from './common.tsx';
import { SettingsList } from './SettingsList.tsx';

export const THEME_TOKENS = [
  'background', 'foreground', 'card', 'card-foreground', 'popover', 'popover-foreground',
  'primary', 'primary-foreground', 'secondary', 'secondary-foreground', 'muted', 'muted-foreground',
  'accent', 'accent-foreground', 'destructive', 'destructive-foreground', 'border', 'input', 'ring',
] as const;

type Mode = 'light' | 'dark';

interface SiteConfig {
  name: string;
  displayTitle: string | null;
  siteUrl: string | null;
  defaultLanguage: string;
  defaultAppearance: 'auto' | 'light' | 'dark';
  defaultSaveAction: 'stay' | 'return' | 'create_new';
  branding: { logoUrl?: string | null; faviconUrl?: string | null; brandColor?: string | null } | null;
  themeOverrides: { light?: Record<string, unknown>; dark?: Record<string, unknown> } | null;
}

/** Every message of an error by its dotted path after `body` (e.g. `themeOverrides.light.primary`). */
function pathErrors(error: unknown): Record<string, string> {
  if (!(error instanceof SvcError)) return {};
  const found: Record<string, string> = {};
  for (const entry of error.errors) {
    const path = (entry.path ?? []).map(String);
    if (path[0] === 'body') found[path.slice(1).join('.')] ??= entry.message;
  }
  return found;
}

export function SettingsPage() {
  return (
    <AdminOnly>
      <Settings />
    </AdminOnly>
  );
}

function Settings() {
  const client = useClient();
  const site = useQuery({
    queryKey: ['admin', 'site'],
    queryFn: async () => (await client.api.GET('/api/v1/site')).data!.data as unknown as SiteConfig,
  });
  return (
    <section className="stack">
      <PageHeader title="Settings">
        <p className="muted">The site’s configuration and its key/value settings.</p>
      </PageHeader>
      <QueryState query={site} />
      {site.data ? <SiteForm site={site.data} /> : null}
      <SettingsList />
    </section>
  );
}

function SiteForm({ site }: { site: SiteConfig }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    name: site.name,
    displayTitle: site.displayTitle ?? '',
    siteUrl: site.siteUrl ?? '',
    defaultLanguage: site.defaultLanguage,
    defaultAppearance: site.defaultAppearance,
    defaultSaveAction: site.defaultSaveAction,
    logoUrl: site.branding?.logoUrl ?? '',
    faviconUrl: site.branding?.faviconUrl ?? '',
    brandColor: site.branding?.brandColor ?? '',
  });
  const initialTokens = (mode: Mode) => Object.fromEntries(Object.entries(site.themeOverrides?.[mode] ?? {}).map(([token, value]) => [token, String(value)]));
  const [tokens, setTokens] = useState<Record<Mode, Record<string, string>>>({ light: initialTokens('light'), dark: initialTokens('dark') });
  const [errors, setErrors] = useFormErrors();
  const [paths, setPaths] = useState<Record<string, string>>({});
  const set = (key: keyof typeof values) => (value: string) => setValues((current) => ({ ...current, [key]: value }));
  const save = useMutation({
    mutationFn: async () => {
      const overrides = (mode: Mode) => Object.fromEntries(Object.entries(tokens[mode]).filter(([, value]) => value.trim() !== '').map(([token, value]) => [token, value.trim()]));
      return client.api.PATCH('/api/v1/site', {
        body: {
          name: values.name,
          displayTitle: values.displayTitle,
          siteUrl: values.siteUrl,
          defaultLanguage: values.defaultLanguage,
          defaultAppearance: values.defaultAppearance,
          defaultSaveAction: values.defaultSaveAction,
          branding: { logoUrl: values.logoUrl || null, faviconUrl: values.faviconUrl || null, brandColor: values.brandColor || null },
          themeOverrides: { light: overrides('light'), dark: overrides('dark') },
        },
      });
    },
    onSuccess: async () => {
      setErrors(null);
      setPaths({});
      await queryClient.invalidateQueries({ queryKey: ['admin', 'site'] });
      await queryClient.invalidateQueries({ queryKey: ['site'] });
    },
    onError: (error) => {
      setErrors(error);
      setPaths(pathErrors(error));
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  const text = (label: string, key: keyof typeof values, error: string | undefined, hint?: string) => (
    <Field label={label} error={error} {...(hint ? { hint } : {})}>
      {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={values[key]} onChange={(event) => set(key)(event.target.value)} />}
    </Field>
  );
  const themeError = (mode: Mode, token: string) => paths[`themeOverrides.${mode}.${token}`];
  const otherThemeErrors = Object.entries(paths).filter(([path]) => path.startsWith('themeOverrides') && !THEME_TOKENS.some((token) => path === `themeOverrides.light.${token}` || path === `themeOverrides.dark.${token}`));
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="site-config">
      <h2 id="site-config">Site</h2>
      {text('Site name', 'name', errors.fields.name)}
      {text('Display title', 'displayTitle', errors.fields.displayTitle)}
      {text('Site URL', 'siteUrl', errors.fields.siteUrl, 'Where the site’s front end lives, e.g. https://example.com')}
      {text('Default language', 'defaultLanguage', errors.fields.defaultLanguage, 'A language tag, e.g. en or fr-CA')}
      <Field label="Default appearance" error={errors.fields.defaultAppearance}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={values.defaultAppearance} onChange={(event) => set('defaultAppearance')(event.target.value)}>
            <option value="auto">auto (the system’s)</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        )}
      </Field>
      <Field label="Default save action" error={errors.fields.defaultSaveAction}>
        {(id, describedBy) => (
          <select id={id} aria-describedby={describedBy} value={values.defaultSaveAction} onChange={(event) => set('defaultSaveAction')(event.target.value)}>
            <option value="stay">Stay on the item</option>
            <option value="return">Return to the list</option>
            <option value="create_new">Start a new item</option>
          </select>
        )}
      </Field>
      <h3>Branding</h3>
      {text('Logo URL', 'logoUrl', paths['branding.logoUrl'])}
      {text('Favicon URL', 'faviconUrl', paths['branding.faviconUrl'])}
      {text('Brand color', 'brandColor', paths['branding.brandColor'], 'A hex color, e.g. #3355ff')}
      <h3>Theme overrides</h3>
      <p className="muted">Values are 'H S% L%' (e.g. 220 90% 56%); leave empty to keep the Studio’s own.</p>
      <table className="data" aria-label="Theme overrides">
        <thead>
          <tr><th>Token</th><th>Light</th><th>Dark</th></tr>
        </thead>
        <tbody>
          {THEME_TOKENS.map((token) => (
            <tr key={token}>
              <th scope="row">{token}</th>
              {(['light', 'dark'] as const).map((mode) => (
                <td key={mode}>
                  <input
                    aria-label={`${token} (${mode})`}
                    aria-invalid={themeError(mode, token) ? true : undefined}
                    aria-describedby={themeError(mode, token) ? `theme-${mode}-${token}-error` : undefined}
                    value={tokens[mode][token] ?? ''}
                    onChange={(event) => setTokens((current) => ({ ...current, [mode]: { ...current[mode], [token]: event.target.value } }))}
                  />
                  {themeError(mode, token) ? <span id={`theme-${mode}-${token}-error`} className="field-error" role="alert">{themeError(mode, token)}</span> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {otherThemeErrors.map(([path, message]) => <p key={path} role="alert" className="alert">{path}: {message}</p>)}
      <GeneralErrors errors={errors} placed={['name', 'displayTitle', 'siteUrl', 'defaultLanguage', 'defaultAppearance', 'defaultSaveAction', 'branding', 'themeOverrides']} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>Save site</button>
        {save.isSuccess ? <span role="status" className="ok">Saved</span> : null}
      </div>
    </form>
  );
}
