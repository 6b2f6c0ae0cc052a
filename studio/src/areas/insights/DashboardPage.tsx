// One dashboard: its panels, each run through the API and drawn (PanelChart); administrators add, edit
// and remove panels. Extension panels declared for the `dashboard` location follow the site's own.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useClient } from '../../session.tsx';
import { useIsAdmin } from '../../ui/permissions.ts';
import { Dialog, ErrorNote, PageHeader, QueryState } from '../../ui/parts.tsx';
import { ExtensionSlot } from '../extensions/ExtensionSlot.tsx';
import { insightsKeys, type DashboardDetail, type Panel, type PanelAnswer } from './api.ts';
import { apiJson } from '../../api.ts';
import { PanelChart } from './Chart.tsx';
import { PanelForm, type PanelInput } from './PanelForm.tsx';

function PanelCard({ dashboardId, panel, admin, onEdit, onRemove }: { dashboardId: string; panel: Panel; admin: boolean; onEdit(): void; onRemove(): void }) {
  const client = useClient();
  const answer = useQuery({
    queryKey: insightsKeys.panelData(dashboardId, panel.id, panel.updatedAt),
    queryFn: () => apiJson<PanelAnswer>(client, 'POST', `/dashboards/${dashboardId}/panels/${panel.id}/data`),
  });
  const headingId = `panel-${panel.id}`;
  return (
    <article className="card stack insights-panel" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>{panel.name}</h3>
        <div className="row">
          <button type="button" onClick={() => void answer.refetch()} aria-label={`Refresh ${panel.name}`}>Refresh</button>
          {admin ? (
            <>
              <button type="button" onClick={onEdit} aria-label={`Edit ${panel.name}`}>Edit</button>
              <button type="button" className="danger" onClick={onRemove} aria-label={`Remove ${panel.name}`}>Remove</button>
            </>
          ) : null}
        </div>
      </div>
      {answer.data ? (
        <>
          <PanelChart panel={panel} rows={answer.data.data} />
          <p className="muted">
            {answer.data.meta.rowCount} {answer.data.meta.rowCount === 1 ? 'row' : 'rows'}, run {new Date(answer.data.meta.executedAt).toLocaleTimeString()}
            {answer.data.meta.cached ? ' (cached)' : ''}
          </p>
        </>
      ) : (
        <QueryState query={answer} />
      )}
    </article>
  );
}

export function DashboardPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  const client = useClient();
  const queryClient = useQueryClient();
  const admin = useIsAdmin();
  const [editing, setEditing] = useState<Panel | 'new' | null>(null);
  const detail = useQuery({
    queryKey: insightsKeys.dashboard(id),
    queryFn: async () => (await apiJson<{ data: DashboardDetail }>(client, 'GET', `/dashboards/${id}`)).data,
  });
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: insightsKeys.dashboard(id) }), queryClient.invalidateQueries({ queryKey: insightsKeys.dashboards })]);
  const save = useMutation({
    mutationFn: async ({ panel, input }: { panel: Panel | null; input: PanelInput }) => {
      if (panel) return apiJson(client, 'PATCH', `/dashboards/${id}/panels/${panel.id}`, input);
      const panels = detail.data?.panels ?? [];
      const y = panels.reduce((bottom, other) => Math.max(bottom, other.position.y + other.position.height), 0);
      return apiJson(client, 'POST', `/dashboards/${id}/panels`, { ...input, position: { x: 0, y, width: 6, height: 4 } });
    },
    onSuccess: () => {
      setEditing(null);
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (panelId: string) => apiJson(client, 'DELETE', `/dashboards/${id}/panels/${panelId}`),
    onSuccess: refresh,
  });
  const dashboard = detail.data;

  return (
    <section className="stack">
      <p><Link to="/dashboards">← All dashboards</Link></p>
      {dashboard ? (
        <>
          <PageHeader title={dashboard.name} actions={admin ? <button type="button" className="primary" onClick={() => { save.reset(); setEditing('new'); }}>Add panel</button> : undefined}>
            {dashboard.note ? <p className="muted">{dashboard.note}</p> : null}
          </PageHeader>
          <ErrorNote error={remove.error} />
          {dashboard.panels.length === 0 ? <p className="muted">No panels yet.</p> : null}
          <div className="insights-grid">
            {dashboard.panels.map((panel) => (
              <PanelCard
                key={panel.id}
                dashboardId={dashboard.id}
                panel={panel}
                admin={admin}
                onEdit={() => { save.reset(); setEditing(panel); }}
                onRemove={() => { if (window.confirm(`Remove the panel “${panel.name}”?`)) remove.mutate(panel.id); }}
              />
            ))}
          </div>
          <ExtensionSlot location="dashboard" heading="Extension panels" />
        </>
      ) : (
        <>
          <h1>Dashboard</h1>
          <QueryState query={detail} />
        </>
      )}
      <Dialog open={editing !== null} onOpenChange={(open) => { if (!open) setEditing(null); }} title={editing === 'new' ? 'Add panel' : 'Edit panel'}>
        {editing !== null ? (
          <PanelForm
            key={editing === 'new' ? 'new' : editing.id}
            panel={editing === 'new' ? null : editing}
            error={save.error}
            pending={save.isPending}
            submitLabel={editing === 'new' ? 'Add panel' : 'Save panel'}
            onSubmit={(input) => save.mutate({ panel: editing === 'new' ? null : editing, input })}
          />
        ) : null}
      </Dialog>
    </section>
  );
}
