// What a role may do: for each collection, each item action checked on the role's behalf
// (POST /permissions/check with its roleId), and a sample of the items it may read.
import { useQuery } from '@tanstack/react-query';
import { useClient } from '../../session.tsx';
import { QueryState } from '../../ui/parts.tsx';
import { ITEM_ACTIONS, useCollections, type Role } from './common.tsx';

interface Decision {
  allowed: boolean;
  reason: string;
  message: string;
  rules: { fields: string[]; conditions: Record<string, unknown> | null; policyName: string }[];
}

interface Row {
  collection: string;
  decisions: Record<string, Decision>;
  readable: { id: string; title: string }[];
  sampled: number;
}

export function RolePreview({ role }: { role: Role }) {
  const client = useClient();
  const collections = useCollections();
  const names = (collections.data ?? []).map((row) => row.name).filter((name) => !name.startsWith('svc_'));
  const preview = useQuery({
    queryKey: ['admin', 'role-preview', role.id, names],
    enabled: collections.data !== undefined,
    queryFn: async (): Promise<Row[]> =>
      Promise.all(
        names.map(async (collection) => {
          const decisions: Record<string, Decision> = {};
          for (const action of ITEM_ACTIONS) {
            const { data } = await client.api.POST('/api/v1/permissions/check', { body: { action, collection, principal: { roleId: role.id } } });
            decisions[action] = data!.data as unknown as Decision;
          }
          const readable: Row['readable'] = [];
          let sampled = 0;
          if (decisions.read?.allowed) {
            const items = await client.api.GET('/api/v1/items/{collection}', { params: { path: { collection }, query: { limit: '5' } } });
            const rows = ((items.data as { data?: Record<string, unknown>[] } | undefined)?.data ?? []);
            sampled = rows.length;
            for (const item of rows) {
              const id = String(item.id);
              const { data } = await client.api.POST('/api/v1/permissions/check', { body: { action: 'read', collection, itemId: id, principal: { roleId: role.id } } });
              const title = ['title', 'name', 'label', 'slug'].map((key) => item[key]).find((value) => typeof value === 'string' && value !== '');
              if ((data!.data as unknown as Decision).allowed) readable.push({ id, title: typeof title === 'string' ? title : id });
            }
          }
          return { collection, decisions, readable, sampled };
        }),
      ),
  });
  return (
    <section className="card stack" aria-labelledby="role-preview">
      <h2 id="role-preview">What {role.name} can do</h2>
      {role.admin ? <p className="notice">An administrator role may do everything.</p> : null}
      <QueryState query={collections.error ? collections : preview} empty={preview.data && preview.data.length === 0 ? 'The site has no collections.' : undefined} />
      {preview.data && preview.data.length > 0 ? (
        <table className="data" aria-label={`Permissions of ${role.name}`}>
          <thead>
            <tr><th>Collection</th>{ITEM_ACTIONS.map((action) => <th key={action}>{action}</th>)}<th>Items it may read (of the first 5)</th></tr>
          </thead>
          <tbody>
            {preview.data.map((row) => (
              <tr key={row.collection}>
                <td>{row.collection}</td>
                {ITEM_ACTIONS.map((action) => {
                  const decision = row.decisions[action];
                  const fields = decision?.rules.flatMap((rule) => rule.fields) ?? [];
                  const filtered = decision?.rules.some((rule) => rule.conditions) ?? false;
                  return (
                    <td key={action} title={decision?.message}>
                      {decision?.allowed ? <span className="ok">allowed</span> : <span className="bad">denied</span>}
                      {decision?.allowed && filtered ? <span className="badge">filtered</span> : null}
                      {decision?.allowed && fields.length > 0 && !fields.includes('*') ? <span className="badge">fields: {fields.join(', ')}</span> : null}
                    </td>
                  );
                })}
                <td>
                  {row.decisions.read?.allowed
                    ? row.sampled === 0
                      ? 'no items yet'
                      : `${row.readable.length} of ${row.sampled}${row.readable.length > 0 ? `: ${row.readable.map((item) => item.title).join(', ')}` : ''}`
                    : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
