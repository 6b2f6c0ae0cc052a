// /settings: a site's key/value settings. Members read; site administrators write, export and apply.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { isKnownSetting, KNOWN_SETTINGS } from './catalogue.ts';
import { checkedKey, settingCommands, SETTINGS_BUNDLE_VERSION, settingsBundleBody, settingsChangesBody, settingValueBody } from './commands.ts';
import { readEffectiveSettings, readStoredSettings } from './settingsStore.ts';
import { commandCaller, SITE_ADMIN } from '../../server/routeKit.ts';

const member = { site: 'required' as const, access: 'bearer' as const };
const keyParams = z.object({ key: z.string() });

export async function settingsRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const effective = (siteId: string) => context.database.withSiteReads(siteId, (tx) => readEffectiveSettings(tx, siteId));

  api.get('/settings', { config: member, schema: { tags: ['settings'] } }, async (request) => ({ data: await effective(request.siteId) }));

  api.patch(
    '/settings',
    { config: SITE_ADMIN, schema: { tags: ['settings'], body: settingsChangesBody } },
    async (request) => ({ data: await context.commands.runValidated(settingCommands.update, { changes: request.body }, commandCaller(request)) }),
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
    { config: SITE_ADMIN, schema: { tags: ['settings'], params: keyParams, body: settingValueBody } },
    async (request) => ({ data: await context.commands.runValidated(settingCommands.set, { ...request.body, key: request.params.key }, commandCaller(request)) }),
  );

  api.post('/settings/export', { config: SITE_ADMIN, schema: { tags: ['settings'] } }, async (request) => {
    const settings = await context.database.withSiteReads(request.siteId, (tx) => readStoredSettings(tx, request.siteId));
    return { data: { version: SETTINGS_BUNDLE_VERSION, exportedAt: new Date().toISOString(), settings } };
  });

  api.post('/settings/apply', { config: SITE_ADMIN, schema: { tags: ['settings'], body: settingsBundleBody } }, async (request) => ({
    data: await context.commands.runValidated(settingCommands.apply, request.body, commandCaller(request)),
  }));
}
