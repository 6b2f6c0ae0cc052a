// Shared parts of the administration pages: the guard that refuses non-administrators before any
// request is made, the records' shapes the pages read, and a small form-errors hook.
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useClient } from '../../session.tsx';
import { errorText, formErrors, type FormErrors } from '../../ui/errors.ts';
import { usePermissions } from '../../ui/permissions.ts';

export interface Role {
  id: string;
  name: string;
  description: string | null;
  admin: boolean;
  parentId: string | null;
  systemKey: string | null;
}

export interface Policy {
  id: string;
  name: string;
  description: string | null;
  attachments: { roles: string[]; users: string[]; teams: string[] };
  permissionCount: number;
}

export interface PermissionRule {
  id: string;
  policyId: string;
  collection: string | null;
  action: string;
  fields: string[];
  conditions: Record<string, unknown> | null;
}

export interface User {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  roleId: string | null;
  status: string;
}

export interface CollectionRow {
  name: string;
  displayName?: string | null;
  icon?: string | null;
  note?: string | null;
  singleton?: boolean;
  editorialWorkflow?: boolean;
  requireSeparateReviewer?: boolean;
  [key: string]: unknown;
}

export const ITEM_ACTIONS = ['create', 'read', 'update', 'delete'] as const;

/** Pages under /admin: the site administrators only. Others see the refusal, and no request is made. */
export function AdminOnly({ children }: { children: ReactNode }) {
  const me = usePermissions();
  if (me.error) return <p role="alert" className="alert">{errorText(me.error)}</p>;
  if (me.isPending) return <p role="status" className="muted">Loading…</p>;
  if (me.data.principal.admin !== true) {
    return (
      <section className="stack">
        <h1>Administration</h1>
        <p role="alert" className="alert">Only site administrators may open this page (PERMISSION_DENIED).</p>
      </section>
    );
  }
  return <>{children}</>;
}

/** The roles of the site, for pickers and names. */
export function useRoles() {
  const client = useClient();
  return useQuery({
    queryKey: ['admin', 'roles'],
    queryFn: async () => (await client.api.GET('/api/v1/roles')).data!.data as Role[],
  });
}

export function useCollections() {
  const client = useClient();
  return useQuery({
    queryKey: ['admin', 'collections'],
    queryFn: async () => (await client.api.GET('/api/v1/collections')).data!.data as CollectionRow[],
  });
}

/** A form's errors from its last failed request: by field, and the rest. */
export function useFormErrors(): [FormErrors, (error: unknown) => void] {
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  return [errors, (error: unknown) => setErrors(formErrors(error))];
}

/** The messages of a failed request that no field of the form shows (`placed` names the fields it has). */
export function GeneralErrors({ errors, placed = [] }: { errors: FormErrors; placed?: string[] }) {
  const messages = [...errors.general, ...unplacedErrors(errors, placed)];
  if (messages.length === 0) return null;
  return (
    <div role="alert" className="alert">
      {messages.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  );
}

/** A field's error that has no input of its own on the form (e.g. a nested path) still shows. */
export function unplacedErrors(errors: FormErrors, placed: string[]): string[] {
  return Object.entries(errors.fields)
    .filter(([field]) => !placed.includes(field))
    .map(([field, message]) => `${field}: ${message}`);
}
