// Maintenance windows: weekly UTC slots, start included and end excluded; no window is always open;
// the next start is the first slot start after the moment, a week ahead at most.
import { describe, expect, it } from 'vitest';
import { isInsideMaintenanceWindow, nextMaintenanceWindowStart } from '../../../domain/releases/maintenanceWindow.ts';

// 2030-01-01 is a Tuesday (dow 2); 2030-01-05 a Saturday (6), 2030-01-06 a Sunday (0).
const at = (iso: string) => new Date(iso);
const tuesdayNight = { windows: [{ dow: 2, start: '22:00', end: '23:30' }] };
const weekend = {
  windows: [
    { dow: 6, start: '22:00', end: '23:59' },
    { dow: 0, start: '00:00', end: '02:00' },
    { dow: 0, start: '14:00', end: '15:00' },
  ],
};

describe('isInsideMaintenanceWindow', () => {
  it('is always true without a window, or with a window of no slots', () => {
    expect(isInsideMaintenanceWindow(null, at('2030-01-01T12:00:00Z'))).toBe(true);
    expect(isInsideMaintenanceWindow({ windows: [] }, at('2030-01-01T12:00:00Z'))).toBe(true);
  });

  it('includes the start and excludes the end of a slot, to the millisecond', () => {
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-01T21:59:59.999Z'))).toBe(false);
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-01T22:00:00.000Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-01T23:29:59.999Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-01T23:30:00.000Z'))).toBe(false);
  });

  it('matches the weekday in UTC, not on other days at the same time', () => {
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-08T22:15:00Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-02T22:15:00Z'))).toBe(false);
    // 22:15 UTC on Tuesday is Wednesday in Tokyo: the offset of the moment does not matter.
    expect(isInsideMaintenanceWindow(tuesdayNight, at('2030-01-02T07:15:00+09:00'))).toBe(true);
  });

  it('is open in any of several slots, across midnight as two slots', () => {
    expect(isInsideMaintenanceWindow(weekend, at('2030-01-05T23:00:00Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(weekend, at('2030-01-06T01:00:00Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(weekend, at('2030-01-06T14:30:00Z'))).toBe(true);
    expect(isInsideMaintenanceWindow(weekend, at('2030-01-06T03:00:00Z'))).toBe(false);
    expect(isInsideMaintenanceWindow(weekend, at('2030-01-07T01:00:00Z'))).toBe(false);
  });
});

describe('nextMaintenanceWindowStart', () => {
  it('is null without a window to wait for', () => {
    expect(nextMaintenanceWindowStart(null, at('2030-01-01T12:00:00Z'))).toBeNull();
    expect(nextMaintenanceWindowStart({ windows: [] }, at('2030-01-01T12:00:00Z'))).toBeNull();
  });

  it('is the start later the same day', () => {
    expect(nextMaintenanceWindowStart(tuesdayNight, at('2030-01-01T12:00:00Z'))).toEqual(at('2030-01-01T22:00:00Z'));
  });

  it('is a week ahead once today’s slot has started, strictly after the moment', () => {
    expect(nextMaintenanceWindowStart(tuesdayNight, at('2030-01-01T22:00:00Z'))).toEqual(at('2030-01-08T22:00:00Z'));
    expect(nextMaintenanceWindowStart(tuesdayNight, at('2030-01-01T23:45:00Z'))).toEqual(at('2030-01-08T22:00:00Z'));
  });

  it('is on a later weekday, across the end of the week', () => {
    expect(nextMaintenanceWindowStart(tuesdayNight, at('2030-01-04T09:00:00Z'))).toEqual(at('2030-01-08T22:00:00Z'));
    expect(nextMaintenanceWindowStart(weekend, at('2030-01-05T23:00:00Z'))).toEqual(at('2030-01-06T00:00:00Z'));
    expect(nextMaintenanceWindowStart(weekend, at('2030-01-06T03:00:00Z'))).toEqual(at('2030-01-06T14:00:00Z'));
    expect(nextMaintenanceWindowStart(weekend, at('2030-01-06T16:00:00Z'))).toEqual(at('2030-01-12T22:00:00Z'));
  });

  it('picks the earliest slot whatever their order in the list', () => {
    const unordered = { windows: [{ dow: 3, start: '18:00', end: '19:00' }, { dow: 3, start: '06:00', end: '07:00' }] };
    expect(nextMaintenanceWindowStart(unordered, at('2030-01-01T12:00:00Z'))).toEqual(at('2030-01-02T06:00:00Z'));
  });

  it('gives a moment inside the window', () => {
    for (const moment of ['2030-01-01T00:00:00Z', '2030-01-03T17:20:00Z', '2030-01-06T16:00:00Z']) {
      const next = nextMaintenanceWindowStart(weekend, at(moment))!;
      expect(next.getTime()).toBeGreaterThan(at(moment).getTime());
      expect(isInsideMaintenanceWindow(weekend, next)).toBe(true);
    }
  });
});
