// /settings: a site's key/value settings. Members read; site administrators write, export and apply.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { isKnownSetting, keyProblem, KNOWN_SETTINGS } from './catalogue.ts';
import { readEffectiveSettings, readStoredSettings, writeSettings } from './settingsStore.ts';
import { SITE_ADMIN } from '../../server/routeKit.ts';

const member = { site: 'required' as const, access: 'bearer' as const };
const keyParams = z.object({ key: z.string() });

export const SETTINGS_BUNDLE_VERSION = 'svc.settings@v1';
const bundleSchema = z.object({
  version: z.string(),
  exportedAt: z.string().optional(),
  settings: z.array(z.object({ key: z.string(), value: z.unknown() }).strict()).max(1000),
});

function checkedKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new AppError('VALIDATION_FAILED', problem, { path: ['params', 'key'] });
  return key;
}

export async function settingsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const effective = (siteId: string) => context.database.withSiteReads(siteId, (tx) => readEffectiveSettings(tx, siteId));

  api.get('/settings', { config: member, schema: { tags: ['settings'] } }, async (request) => ({ data: await effective(request.siteId) }));

  api.patch(
    '/settings',
    { config: SITE_ADMIN, schema: { tags: ['settings'], body: z.record(z.string(), z.unknown()) } },
    async (request) => {
      const entries = Object.entries(request.body);
      if (entries.length === 0 || entries.length > 100) {
        throw new AppError('VALIDATION_FAILED', 'Send 1 to 100 settings, each key with its value (null removes it)', { path: ['body'] });
      }
      await writeSettings(context, {
        siteId: request.siteId,
        set: Object.fromEntries(entries.filter(([, value]) => value !== null)),
        remove: entries.filter(([, value]) => value === null).map(([key]) => key),
        metadata: request.metadata,
        path: ['body'],
      });
      return { data: await effective(request.siteId) };
    },
  );

  api.get('/settings/:key', { config: member, schema: { tags: ['settings'], params: keyParams } }, async (request) => {
    const key = checkedKey(request.params.key);
    const stored = await context.database.withSiteReads(request.siteId, (tx) => readStoredSettings(tx, request.siteId));
    const found = stored.find((setting) => setting.key === key);
    if (found) return { data: { key, value: found.value, isDefault: false } };
    if (isKnownSetting(key)) return { data: { key, value: KNOWN_SETTINGS[key]!.default, isDefault: true } };
    throw new AppError('NOT_FOUND', `No setting "${key}"`, { path: ['params', 'key'] });
  });

  api.put(
    '/settings/:key',
    { config: SITE_ADMIN, schema: { tags: ['settings'], params: keyParams, body: z.object({ value: z.unknown() }).strict() } },
    async (request) => {
      const key = checkedKey(request.params.key);
      const { value } = request.body;
      if (value === null || value === undefined) {
        throw new AppError('VALIDATION_FAILED', 'A value is required (PATCH /settings with null removes a setting)', { path: ['body', 'value'] });
      }
      await writeSettings(context, { siteId: request.siteId, set: { [key]: value }, remove: [], metadata: request.metadata, path: ['params'], valuePath: () => ['body', 'value'] });
      return { data: { key, value, isDefault: false } };
    },
  );

  api.post('/settings/export', { config: SITE_ADMIN, schema: { tags: ['settings'] } }, async (request) => {
    const settings = await context.database.withSiteReads(request.siteId, (tx) => readStoredSettings(tx, request.siteId));
    return { data: { version: SETTINGS_BUNDLE_VERSION, exportedAt: new Date().toISOString(), settings } };
  });

  api.post('/settings/apply', { config: SITE_ADMIN, schema: { tags: ['settings'], body: bundleSchema } }, async (request) => {
    const { version, settings } = request.body;
    if (version !== SETTINGS_BUNDLE_VERSION) {
      throw new AppError('VALIDATION_FAILED', `A settings bundle has version ${SETTINGS_BUNDLE_VERSION}`, { path: ['body', 'version'] });
    }
    const indexOf = new Map<string, number>();
    settings.forEach((setting, index) => {
      if (indexOf.has(setting.key)) throw new AppError('VALIDATION_FAILED', `"${setting.key}" is in the bundle twice`, { path: ['body', 'settings', index, 'key'] });
      indexOf.set(setting.key, index);
    });
    const outcome = await writeSettings(context, {
      siteId: request.siteId,
      set: Object.fromEntries(settings.map((setting) => [setting.key, setting.value])),
      remove: [],
      metadata: request.metadata,
      path: ['body', 'settings'],
      keyPath: (key) => ['body', 'settings', indexOf.get(key)!, 'key'],
      valuePath: (key) => ['body', 'settings', indexOf.get(key)!, 'value'],
    });
    return { data: { applied: { created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged } } };
  });
}
