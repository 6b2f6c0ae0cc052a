// Reading and writing a site's settings: the stored keys, the defaults of known keys, and a write of
// several keys as one command on the site's settings stream (inside the caller's transaction when it
// has one: a config manifest applies settings with its schema changes).
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { settingsDecider, settingsOutcome, type SettingsOutcome } from '../../../domain/settings/settings.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { KNOWN_SETTINGS, keyProblem, valueProblem } from './catalogue.ts';

export interface StoredSetting {
  key: string;
  value: unknown;
}

export interface SettingsWrite {
  siteId: string;
  set: Record<string, unknown>;
  remove: string[];
  metadata: EventMetadata;
  /** Where the keys of `set` and `remove` sit in the request, for error paths (e.g. ['body']). */
  path: (string | number)[];
  /** The path of each key (default: path + key). */
  keyPath?: (key: string) => (string | number)[];
  /** The path of each key's value (default: path + key). */
  valuePath?: (key: string) => (string | number)[];
}

function settingsStream(siteId: string): string {
  return streamId(siteId, 'settings', 'site');
}

/** The settings the site has set (not the defaults of known keys), sorted by key. */
export async function readStoredSettings(tx: Queryable, siteId: string): Promise<StoredSetting[]> {
  return tx.query<StoredSetting>(sql`SELECT key, value FROM settings WHERE site_id = ${siteId} ORDER BY key`);
}

/** One setting as the site sees it: its stored value, else the known key's default (undefined for an unknown key never set). */
export async function readEffectiveSetting(tx: Queryable, siteId: string, key: string): Promise<unknown> {
  const [row] = await tx.query<{ value: unknown }>(sql`SELECT value FROM settings WHERE site_id = ${siteId} AND key = ${key}`);
  return row ? row.value : KNOWN_SETTINGS[key]?.default;
}

/** Every setting as the site sees it: the stored keys over the defaults of known keys. */
export async function readEffectiveSettings(tx: Queryable, siteId: string): Promise<Record<string, unknown>> {
  const effective: Record<string, unknown> = {};
  const stored = await readStoredSettings(tx, siteId);
  const keys = [...new Set([...Object.keys(KNOWN_SETTINGS), ...stored.map((setting) => setting.key)])].sort();
  const byKey = new Map(stored.map((setting) => [setting.key, setting.value]));
  for (const key of keys) effective[key] = byKey.has(key) ? byKey.get(key) : KNOWN_SETTINGS[key]!.default;
  return effective;
}

/** Refuses the whole write on its first bad key or value (nothing is written). */
function checkWrite(write: SettingsWrite): void {
  const keyPath = write.keyPath ?? ((key: string) => [...write.path, key]);
  const valuePath = write.valuePath ?? keyPath;
  for (const key of [...Object.keys(write.set), ...write.remove]) {
    const problem = keyProblem(key);
    if (problem) throw new AppError('VALIDATION_FAILED', problem, { path: keyPath(key) });
  }
  for (const [key, value] of Object.entries(write.set)) {
    const problem = valueProblem(key, value);
    if (problem) throw new AppError('VALIDATION_FAILED', `${key}: ${problem.message}`, { path: [...valuePath(key), ...problem.path] });
  }
}

/** Validates and records the keys set and removed inside the caller's transaction; unchanged values write nothing. */
export async function writeSettingsIn(tx: Queryable, context: Pick<AppContext, 'projections'>, write: SettingsWrite): Promise<SettingsOutcome> {
  checkWrite(write);
  const command = { type: 'writeSettings' as const, set: write.set, remove: write.remove };
  let before = settingsDecider.initialState();
  const result = await handleCommandIn(tx, context.projections, {
    siteId: write.siteId,
    streamId: settingsStream(write.siteId),
    decider: settingsDecider,
    command: (state) => {
      before = state;
      return command;
    },
    metadata: write.metadata,
    lock: true,
  });
  return settingsOutcome(before, result.events, command);
}

/** writeSettingsIn in a transaction of its own. */
export async function writeSettings(context: Pick<AppContext, 'database' | 'projections'>, write: SettingsWrite): Promise<SettingsOutcome> {
  checkWrite(write);
  return inSiteTransaction(context, write.siteId, (tx) => writeSettingsIn(tx, context, write));
}
