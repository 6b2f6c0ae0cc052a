// Events of the settings context: a site's key/value settings, one event per key that changes, so
// the log and the audit list say who changed which setting. The value's shape is checked by the
// setting's definition when it is written (src/modules/settings/catalogue.ts), not here.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const settingEventSchemas = {
  'setting.set': z.object({ key: z.string(), value: z.unknown() }),
  'setting.removed': z.object({ key: z.string() }),
};
export type SettingEvent = EventOf<typeof settingEventSchemas>;
