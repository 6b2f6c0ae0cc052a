// Parts the compliance screens share: the pager, the site's users by id (actors are ids in the logs),
// and the notice shown to someone who is not a site administrator.
import { useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import type { Page } from './api.ts';
import { apiJson } from '../../api.ts';

export function Pager({ page, pageSize, total, onPage, label }: { page: number; pageSize: number; total: number; onPage(page: number): void; label: string }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page} of {pages} ({total} {total === 1 ? 'entry' : 'entries'})
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
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

