// The release's schedule: when the scheduler publishes it (`publishAt`, not in the past) and, if any,
// the weekly maintenance windows (UTC, each within one day) it must publish in: a due release outside
// them waits for the next one. Unscheduling clears `publishAt`, making the release a draft again.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { Field } from '../../ui/parts.tsx';
import { DAYS, isoToLocal, localToIso, patchRelease, type MaintenanceWindow, type Release } from './api.ts';
import { placeErrors } from './errors.ts';

export function ScheduleForm({ release, canUnschedule, onSaved }: { release: Release; canUnschedule: boolean; onSaved(next: Release): Promise<void> }) {
  const client = useClient();
  const [publishAt, setPublishAt] = useState(isoToLocal(release.publishAt));
  const [windows, setWindows] = useState<MaintenanceWindow[]>(release.maintenanceWindow?.windows ?? []);
  const save = useMutation({
    mutationFn: () =>
      patchRelease(client, release.id, {
        publishAt: localToIso(publishAt),
        maintenanceWindow: windows.length > 0 ? { windows } : null,
      }),
    onSuccess: onSaved,
  });
  const unschedule = useMutation({
    mutationFn: () => patchRelease(client, release.id, { publishAt: null }),
    onSuccess: async (next) => {
      setPublishAt('');
      await onSaved(next);
    },
  });
  const errors = placeErrors(save.error ?? unschedule.error, (path) => {
    if (path[0] === 'publishAt') return 'publishAt';
    if (path[0] === 'maintenanceWindow' && path[1] === 'windows' && typeof path[2] === 'number') return `window-${path[2]}-${String(path[3] ?? 'end')}`;
    return null;
  });

  function change(index: number, patch: Partial<MaintenanceWindow>) {
    setWindows(windows.map((window, at) => (at === index ? { ...window, ...patch } : window)));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!publishAt) return;
    save.mutate();
  }

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="schedule-title">
      <h2 id="schedule-title">Schedule</h2>
      <p className="muted">
        {release.status === 'scheduled' ? 'The scheduler publishes this release at the time below, within a maintenance window if it has any.' : 'A draft is published by hand until it has a time.'}
      </p>
      <Field label="Publish at" error={errors.fields.publishAt} hint="Your local time; it must not be in the past.">
        {(id, describedBy) => <input id={id} type="datetime-local" required aria-describedby={describedBy} value={publishAt} onChange={(event) => setPublishAt(event.target.value)} />}
      </Field>
      <fieldset className="release-windows stack">
        <legend>Maintenance windows (UTC)</legend>
        {windows.length === 0 ? <p className="muted">None: the release may publish at any time once due.</p> : null}
        {windows.map((window, index) => (
          <div className="row" key={index} role="group" aria-label={`Window ${index + 1}`}>
            <Field label={`Window ${index + 1} day`} error={errors.fields[`window-${index}-dow`]}>
              {(id, describedBy) => (
                <select id={id} aria-describedby={describedBy} value={window.dow} onChange={(event) => change(index, { dow: Number(event.target.value) })}>
                  {DAYS.map((day, dow) => (
                    <option key={day} value={dow}>{day}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label={`Window ${index + 1} start`} error={errors.fields[`window-${index}-start`]}>
              {(id, describedBy) => <input id={id} type="time" required aria-describedby={describedBy} value={window.start} onChange={(event) => change(index, { start: event.target.value })} />}
            </Field>
            <Field label={`Window ${index + 1} end`} error={errors.fields[`window-${index}-end`]}>
              {(id, describedBy) => <input id={id} type="time" required aria-describedby={describedBy} value={window.end} onChange={(event) => change(index, { end: event.target.value })} />}
            </Field>
            <button type="button" onClick={() => setWindows(windows.filter((_, at) => at !== index))} aria-label={`Remove window ${index + 1}`}>Remove</button>
          </div>
        ))}
        <div className="row">
          <button type="button" onClick={() => setWindows([...windows, { dow: 6, start: '02:00', end: '04:00' }])}>Add a window</button>
        </div>
      </fieldset>
      {errors.general.map((message) => (
        <p key={message} role="alert" className="alert">{message}</p>
      ))}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>{release.status === 'scheduled' ? 'Save schedule' : 'Schedule'}</button>
        {canUnschedule ? (
          <button type="button" disabled={unschedule.isPending} onClick={() => unschedule.mutate()}>Unschedule</button>
        ) : null}
      </div>
    </form>
  );
}
