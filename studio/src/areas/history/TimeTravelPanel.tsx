// Time travel: the item as it stood at a moment (GET /items/:c/:id?asOf=), beside what changed since.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSession } from '../../session.tsx';
import { Field, QueryState } from '../../ui/parts.tsx';
import { itemPath, type Json } from './api.ts';
import { apiJson } from '../../api.ts';
import { Diff, ValuesTable } from './Diff.tsx';

export function TimeTravelPanel({ collection, id, current, moment, onMoment }: { collection: string; id: string; current: Json | null; moment: string; onMoment(value: string): void }) {
  const { client } = useSession();
  const [input, setInput] = useState(moment);
  const [inputError, setInputError] = useState<string | undefined>();
  const asOf = moment === '' ? null : new Date(moment);
  const iso = asOf && !Number.isNaN(asOf.getTime()) ? asOf.toISOString() : null;
  const then = useQuery({
    queryKey: ['history', collection, id, 'asOf', iso],
    enabled: iso !== null,
    retry: false,
    queryFn: async () => (await apiJson<{ data: Json }>(client, 'GET', `${itemPath(collection, id)}?asOf=${encodeURIComponent(iso!)}`)).data,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = new Date(input);
    if (input === '' || Number.isNaN(parsed.getTime())) {
      setInputError('Give a date and time.');
      return;
    }
    setInputError(undefined);
    onMoment(input);
  }

  return (
    <section className="stack" aria-labelledby="time-travel-heading">
      <h2 id="time-travel-heading">Time travel</h2>
      <form className="row" onSubmit={submit}>
        <Field label="Show the item as of" error={inputError} hint="Your local time, to the millisecond">
          {(fieldId, describedBy) => (
            <input id={fieldId} aria-describedby={describedBy} type="datetime-local" step="0.001" value={input} onChange={(event) => setInput(event.target.value)} />
          )}
        </Field>
        <button type="submit" className="primary">Show</button>
      </form>
      {iso === null ? <p className="muted">Pick a moment, or use “As of” on a revision.</p> : null}
      {iso !== null && !then.data ? <QueryState query={then} /> : null}
      {iso !== null && then.data ? (
        <div className="stack">
          <h3>As of {new Date(iso).toLocaleString()}</h3>
          <ValuesTable label="The item as it was then" values={then.data} />
          <h3>Changed since</h3>
          <Diff label="Changes since then" before={then.data} after={current} beforeLabel="Then" afterLabel="Now" />
        </div>
      ) : null}
    </section>
  );
}
