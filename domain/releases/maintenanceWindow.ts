// A release's maintenance window: weekly slots in UTC (`{ dow: 0–6, Sunday = 0, start, end: 'HH:MM' }`)
// in which a due release may be published. A slot runs from its start (included) to its end
// (excluded); no window, or one with no slots (the API refuses those), holds nothing back.
import type { MaintenanceWindow } from './events.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

type Slot = MaintenanceWindow['windows'][number];

const minuteOfDay = (hhmm: string): number => {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours! * 60 + minutes!;
};

const startOfUtcDay = (moment: Date): number => Math.floor(moment.getTime() / DAY_MS) * DAY_MS;

const slotsOf = (window: MaintenanceWindow | null): readonly Slot[] => window?.windows ?? [];

function contains(slot: Slot, moment: Date): boolean {
  if (slot.dow !== moment.getUTCDay()) return false;
  const sinceMidnight = moment.getTime() - startOfUtcDay(moment);
  return sinceMidnight >= minuteOfDay(slot.start) * MINUTE_MS && sinceMidnight < minuteOfDay(slot.end) * MINUTE_MS;
}

/** Whether `moment` falls inside one of the window's slots (always, when there is no window). */
export function isInsideMaintenanceWindow(window: MaintenanceWindow | null, moment: Date): boolean {
  const slots = slotsOf(window);
  return slots.length === 0 || slots.some((slot) => contains(slot, moment));
}

/**
 * The first slot start strictly after `moment` (a release outside its window waits for it); null when
 * there is no window to wait for.
 */
export function nextMaintenanceWindowStart(window: MaintenanceWindow | null, moment: Date): Date | null {
  const slots = slotsOf(window);
  const today = startOfUtcDay(moment);
  let earliest: number | null = null;
  // Eight days: a slot earlier today on today's weekday comes next a week from today.
  for (let offset = 0; offset <= 7; offset += 1) {
    const day = today + offset * DAY_MS;
    const dow = new Date(day).getUTCDay();
    for (const slot of slots) {
      if (slot.dow !== dow) continue;
      const start = day + minuteOfDay(slot.start) * MINUTE_MS;
      if (start > moment.getTime() && (earliest === null || start < earliest)) earliest = start;
    }
    if (earliest !== null) break;
  }
  return earliest === null ? null : new Date(earliest);
}
