// The settings area's commands (the command registry, docs/architecture.md): change several settings
// (null removes one), set one by key, apply an exported bundle. Each is dangerous: a write can remove
// a setting, and `erasureDualControl` decides whether an erasure needs a second administrator.
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { keyProblem } from './catalogue.ts';
import { readEffectiveSettings, writeSettings } from './settingsStore.ts';

export const SETTINGS_BUNDLE_VERSION = 'svc.settings@v1';

/** PATCH /settings: each key with its value, null removing it. */
export const settingsChangesBody = z.record(z.string(), z.unknown());
export const settingValueBody = z.object({ value: z.unknown() }).strict();
export const settingsBundleBody = z.object({
  version: z.string(),
  exportedAt: z.string().optional(),
  settings: z.array(z.object({ key: z.string(), value: z.unknown() }).strict()).max(1000),
});

/** A setting key of a path, or 400 at `params.key`. */
export function checkedKey(key: string): string {
  const problem = keyProblem(key);
  if (problem) throw new AppError('VALIDATION_FAILED', problem, { path: ['params', 'key'] });
  return key;
}

const update = defineCommand({
  name: 'settings.update',
  description: 'Set or remove several settings at once (1 to 100 keys; null removes a key, which goes back to its default): the effective settings.',
  input: z.object({ changes: settingsChangesBody }),
  bodyKey: 'changes',
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const entries = Object.entries(input.changes);
    if (entries.length === 0 || entries.length > 100) {
      throw new AppError('VALIDATION_FAILED', 'Send 1 to 100 settings, each key with its value (null removes it)', { path: ['body'] });
    }
    await writeSettings(context, {
      siteId,
      set: Object.fromEntries(entries.filter(([, value]) => value !== null)),
      remove: entries.filter(([, value]) => value === null).map(([key]) => key),
      metadata,
      path: ['body'],
    });
    return context.database.withSiteReads(siteId, (tx) => readEffectiveSettings(tx, siteId));
  },
});

const set = defineCommand({
  name: 'settings.set',
  description: 'Set one setting by its key.',
  input: settingValueBody.safeExtend({ key: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const key = checkedKey(input.key);
    const { value } = input;
    if (value === null || value === undefined) {
      throw new AppError('VALIDATION_FAILED', 'A value is required (PATCH /settings with null removes a setting)', { path: ['body', 'value'] });
    }
    await writeSettings(context, { siteId, set: { [key]: value }, remove: [], metadata, path: ['params'], valuePath: () => ['body', 'value'] });
    return { key, value, isDefault: false };
  },
});

const apply = defineCommand({
  name: 'settings.apply',
  description: `Apply a settings bundle (${SETTINGS_BUNDLE_VERSION}, as POST /settings/export gives it): each setting created, updated or unchanged.`,
  input: settingsBundleBody,
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { version, settings } = input;
    if (version !== SETTINGS_BUNDLE_VERSION) {
      throw new AppError('VALIDATION_FAILED', `A settings bundle has version ${SETTINGS_BUNDLE_VERSION}`, { path: ['body', 'version'] });
    }
    const indexOf = new Map<string, number>();
    settings.forEach((setting, index) => {
      if (indexOf.has(setting.key)) throw new AppError('VALIDATION_FAILED', `"${setting.key}" is in the bundle twice`, { path: ['body', 'settings', index, 'key'] });
      indexOf.set(setting.key, index);
    });
    const outcome = await writeSettings(context, {
      siteId,
      set: Object.fromEntries(settings.map((setting) => [setting.key, setting.value])),
      remove: [],
      metadata,
      path: ['body', 'settings'],
      keyPath: (key) => ['body', 'settings', indexOf.get(key)!, 'key'],
      valuePath: (key) => ['body', 'settings', indexOf.get(key)!, 'value'],
    });
    return { applied: { created: outcome.created, updated: outcome.updated, unchanged: outcome.unchanged } };
  },
});

export const settingCommands = { update, set, apply };
