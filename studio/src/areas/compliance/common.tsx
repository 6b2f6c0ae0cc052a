// Parts the compliance screens share: a filter form's state, the site's users by id (actors are ids in the logs),
// and the notice shown to someone who is not a site administrator.
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import type { Page } from './api.ts';
import { apiJson } from '../../api.ts';

/**
 * A filter form over a paged list: what is typed (`draft`), what the list shows (`applied`, with its
 * page), `set(key)` for an input's change, `apply` on submit and `clear`.
 */
export function useFilterForm<Filters extends { [Key in keyof Filters]: string }>(empty: Filters) {
  const [draft, setDraft] = useState<Filters>(empty);
  const [applied, setApplied] = useState<Filters>(empty);
  const [page, setPage] = useState(1);
  return {
    draft,
    applied,
    page,
    setPage,
    set: (key: keyof Filters) => (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value }),
    apply(event: FormEvent) {
      event.preventDefault();
      setApplied(draft);
      setPage(1);
    },
    clear() {
      setDraft(empty);
      setApplied(empty);
      setPage(1);
    },
  };
}

/** The From and To inputs of a filter form (local date-times), with ids `<prefix>-from` and `<prefix>-to`. */
export function TimeRangeFields({ prefix, from, to, set }: { prefix: string; from: string; to: string; set(key: 'from' | 'to'): (event: { target: { value: string } }) => void }) {
  return (
    <>
      <div className="field">
        <label htmlFor={`${prefix}-from`}>From</label>
        <input id={`${prefix}-from`} type="datetime-local" value={from} onChange={set('from')} />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-to`}>To</label>
        <input id={`${prefix}-to`} type="datetime-local" value={to} onChange={set('to')} />
      </div>
    </>
  );
}

export interface SiteUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

/** The site's users (the first 200), for naming actors; empty when the reader may not list them. */
export function useSiteUsers(enabled = true): SiteUser[] {
  const client = useClient();
  const users = useQuery({
    queryKey: ['compliance', 'users'],
    enabled,
    retry: false,
    queryFn: async () => (await apiJson<Page<SiteUser>>(client, 'GET', '/users?limit=200')).data,
  });
  return users.data ?? [];
}

export function nameOf(users: SiteUser[], id: string | null | undefined, kind?: string): string {
  if (!id) return kind ?? '—';
  const user = users.find((candidate) => candidate.id === id);
  return user ? user.email : kind && kind !== 'user' ? `${kind} ${id}` : id;
}

export function AdminOnly() {
  return (
    <p role="alert" className="alert">
      This screen is for site administrators. Ask an administrator of the site if you need its compliance records.
    </p>
  );
}

