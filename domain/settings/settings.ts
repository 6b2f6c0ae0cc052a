// A site's settings: one stream per site holding every key's current value. A write names the keys
// to set and to remove; only the keys whose value changes become events.
import { isDeepStrictEqual } from 'node:util';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SettingEvent, settingEventSchemas } from './events.ts';

export type { SettingEvent };

export type SettingsCommand = { type: 'writeSettings'; set: Readonly<Record<string, unknown>>; remove: readonly string[] };

export interface SettingsState {
  values: ReadonlyMap<string, unknown>;
}

/** What a write changed: keys created, updated, removed; keys left as they were. */
export interface SettingsOutcome {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

export function settingsOutcome(state: SettingsState, events: readonly { type: string; data: unknown }[], command: SettingsCommand): SettingsOutcome {
  let created = 0;
  let updated = 0;
  let deleted = 0;
  for (const event of events) {
    if (event.type === 'setting.removed') deleted += 1;
    else if (state.values.has((event.data as { key: string }).key)) updated += 1;
    else created += 1;
  }
  const named = Object.keys(command.set).length + command.remove.length;
  return { created, updated, deleted, unchanged: named - events.length };
}

export const settingsDecider: Decider<SettingsState, SettingsCommand, SettingEvent> = {
  eventTypes: eventTypesOf(settingEventSchemas),
  initialState: () => ({ values: new Map() }),
  evolve(state, event) {
    const values = new Map(state.values);
    if (event.type === 'setting.set') values.set(event.data.key, event.data.value);
    else if (event.type === 'setting.removed') values.delete(event.data.key);
    return { values };
  },
  decide(command, state) {
    const events: SettingEvent[] = [];
    for (const key of Object.keys(command.set).sort()) {
      const value = command.set[key];
      if (state.values.has(key) && isDeepStrictEqual(state.values.get(key), value)) continue;
      events.push({ type: 'setting.set', data: { key, value } });
    }
    for (const key of [...new Set(command.remove)].sort()) {
      if (state.values.has(key) && !(key in command.set)) events.push({ type: 'setting.removed', data: { key } });
    }
    return events;
  },
};
