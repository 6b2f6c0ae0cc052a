// A policy's permission rules: each (collection, action, fields, filter), a new rule, and removal.
// A rule without a collection grants a capability (e.g. media:read).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { ErrorNote, Field, QueryState } from '../../ui/parts.tsx';
import { GeneralErrors, useCollections, useFormErrors, type PermissionRule } from './common.tsx';

const ACTIONS = ['read', 'create', 'update', 'delete', 'review', 'publish', 'media:read', 'media:create', 'media:update', 'media:delete', 'cdc:subscribe'];

export function PolicyRules({ policyId }: { policyId: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const collections = useCollections();
  const rules = useQuery({
    queryKey: ['admin', 'policy-rules', policyId],
    queryFn: async () => (await client.api.GET('/api/v1/policies/{id}/permissions', { params: { path: { id: policyId } } })).data!.data as unknown as PermissionRule[],
  });
  const [collection, setCollection] = useState('');
  const [action, setAction] = useState('read');
  const [fields, setFields] = useState('*');
  const [conditions, setConditions] = useState('');
  const [conditionsError, setConditionsError] = useState<string | undefined>();
  const [errors, setErrors] = useFormErrors();
  const invalidate = async () => {
    await queryClient.invalidateQueries({ queryKey: ['admin', 'policy-rules', policyId] });
    await queryClient.invalidateQueries({ queryKey: ['admin', 'policy', policyId] });
    await queryClient.invalidateQueries({ queryKey: ['admin', 'role-preview'] });
  };
  const create = useMutation({
    mutationFn: async (filter: Record<string, unknown> | null) =>
      client.api.POST('/api/v1/policies/{id}/permissions', {
        params: { path: { id: policyId } },
        body: {
          action: action.trim(),
          collection: collection || null,
          fields: fields.trim() ? fields.split(',').map((name) => name.trim()).filter(Boolean) : null,
          conditions: filter,
        },
      }),
    onSuccess: async () => {
      setErrors(null);
      setConditions('');
      await invalidate();
    },
    onError: setErrors,
  });
  const remove = useMutation({
    mutationFn: async (permissionId: string) =>
      client.api.DELETE('/api/v1/policies/{id}/permissions/{permissionId}', { params: { path: { id: policyId, permissionId } } }),
    onSuccess: invalidate,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    let filter: Record<string, unknown> | null = null;
    if (conditions.trim()) {
      try {
        const value: unknown = JSON.parse(conditions);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        filter = value as Record<string, unknown>;
      } catch {
        setConditionsError('A filter is a JSON object, e.g. {"status": {"_eq": "published"}}');
        return;
      }
    }
    setConditionsError(undefined);
    create.mutate(filter);
  }
  const names = (collections.data ?? []).map((row) => row.name).filter((name) => !name.startsWith('svc_'));
  return (
    <section className="card stack" aria-labelledby="policy-rules">
      <h2 id="policy-rules">Permission rules</h2>
      <QueryState query={rules} empty={rules.data?.length === 0 ? 'No rules yet: the policy grants nothing.' : undefined} />
      <ErrorNote error={remove.error} />
      {rules.data && rules.data.length > 0 ? (
        <table className="data" aria-label="Permission rules">
          <thead>
            <tr><th>Collection</th><th>Action</th><th>Fields</th><th>Filter</th><th><span className="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {rules.data.map((rule) => (
              <tr key={rule.id}>
                <td>{rule.collection ?? '(capability)'}</td>
                <td>{rule.action}</td>
                <td>{rule.fields.length > 0 ? rule.fields.join(', ') : 'all'}</td>
                <td><code>{rule.conditions ? JSON.stringify(rule.conditions) : '—'}</code></td>
                <td>
                  <button type="button" className="danger" aria-label={`Remove rule ${rule.action} on ${rule.collection ?? 'the site'}`} onClick={() => remove.mutate(rule.id)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="stack" onSubmit={submit} aria-labelledby="new-rule">
        <h3 id="new-rule">New rule</h3>
        <Field label="Rule collection" error={errors.fields.collection} hint="None for a capability such as media:read">
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={collection} onChange={(event) => setCollection(event.target.value)}>
              <option value="">None (capability)</option>
              {names.map((name) => <option key={name} value={name}>{name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Action" error={errors.fields.action}>
          {(id, describedBy) => (
            <>
              <input id={id} aria-describedby={describedBy} list={`${id}-actions`} value={action} onChange={(event) => setAction(event.target.value)} required />
              <datalist id={`${id}-actions`}>
                {ACTIONS.map((value) => <option key={value} value={value} />)}
              </datalist>
            </>
          )}
        </Field>
        <Field label="Fields" error={errors.fields.fields} hint="Comma-separated field names; * for all">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={fields} onChange={(event) => setFields(event.target.value)} />}
        </Field>
        <Field label="Filter (JSON)" error={conditionsError ?? errors.fields.conditions} hint='Which items the rule covers, e.g. {"status": {"_eq": "published"}}'>
          {(id, describedBy) => <textarea id={id} aria-describedby={describedBy} value={conditions} onChange={(event) => setConditions(event.target.value)} rows={3} />}
        </Field>
        <GeneralErrors errors={errors} placed={['collection', 'action', 'fields', 'conditions']} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>Add rule</button>
        </div>
      </form>
    </section>
  );
}
