// /collections/$collection/$id/history: the item's current values, then tabs for its revisions, its
// named versions and time travel.
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { Tabs } from 'radix-ui';
import { useState } from 'react';
import { useSession } from '../../session.tsx';
import { PageHeader, QueryState } from '../../ui/parts.tsx';
import { itemPath, toLocalInput, type Json } from './api.ts';
import { apiJson } from '../../api.ts';
import { ValuesTable } from './Diff.tsx';
import { RevisionsPanel } from './RevisionsPanel.tsx';
import { TimeTravelPanel } from './TimeTravelPanel.tsx';
import { VersionsPanel } from './VersionsPanel.tsx';

export function HistoryPage() {
  const { collection, id } = useParams({ strict: false }) as { collection: string; id: string };
  const { client } = useSession();
  const [tab, setTab] = useState('revisions');
  const [moment, setMoment] = useState('');
  const item = useQuery({
    queryKey: ['history', collection, id, 'item'],
    queryFn: async () => (await apiJson<{ data: Json }>(client, 'GET', itemPath(collection, id))).data,
  });
  const current = item.data ?? null;

  return (
    <section className="stack">
      <PageHeader
        title={`History of ${collection} item`}
        actions={
          <>
            <Link to="/collections/$collection/$id" params={{ collection, id }}>Edit the item</Link>
            <Link to="/collections/$collection/$id/review" params={{ collection, id }}>Review</Link>
          </>
        }
      >
        <p className="muted"><code>{id}</code></p>
      </PageHeader>
      <details open>
        <summary>Current values</summary>
        {current ? <ValuesTable label="Current values" values={current} /> : <QueryState query={item} />}
      </details>
      <Tabs.Root value={tab} onValueChange={setTab}>
        <Tabs.List className="tabs-list" aria-label="Item history">
          <Tabs.Trigger value="revisions">Revisions</Tabs.Trigger>
          <Tabs.Trigger value="versions">Versions</Tabs.Trigger>
          <Tabs.Trigger value="time">Time travel</Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="revisions">
          <RevisionsPanel
            collection={collection}
            id={id}
            current={current}
            onTimeTravel={(timestamp) => {
              setMoment(toLocalInput(timestamp));
              setTab('time');
            }}
          />
        </Tabs.Content>
        <Tabs.Content value="versions">
          <VersionsPanel collection={collection} id={id} />
        </Tabs.Content>
        <Tabs.Content value="time">
          <TimeTravelPanel key={moment} collection={collection} id={id} current={current} moment={moment} onMoment={setMoment} />
        </Tabs.Content>
      </Tabs.Root>
    </section>
  );
}
