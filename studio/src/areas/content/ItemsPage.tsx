// A collection's items: a table of the chosen columns, filters built as rows, sort by a column's
// header, paging, full-text search, the effective view preset on load, saved views and bookmarks, and
// live updates. Only the visible columns are asked for; a total is asked for only when it is cheap
// (no filter: the service answers it from kept counts); a filtered list pages with next/previous and
// `meta=none` (docs/content.md, "Lists").
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { PageHeader, QueryState } from '../../ui/parts.tsx';
import { enc, getCollection, getFields, getRelations, isAlias, type FieldInfo, type Item, type Preset, type PresetQuery } from './api.ts';
import { call } from '../../api.ts';
import { FilterBuilder, filterOf, rowsOf, type FilterRow } from './FilterBuilder.tsx';
import { PresetsBar } from './PresetsBar.tsx';
import { SearchResults } from './SearchResults.tsx';
import { useLiveChanges } from './live.ts';
import { ExtensionSlot } from '../extensions/ExtensionSlot.tsx';

interface View {
  columns: string[];
  rows: FilterRow[];
  /** A stored filter the rows cannot show, kept as it is. */
  rawFilter: Record<string, unknown> | undefined;
  sort: string | null;
  limit: number;
  search: string;
}

function viewOf(query: PresetQuery | undefined, fields: FieldInfo[]): View {
  const names = new Set(fields.map((field) => field.field));
  const columns = (query?.fields ?? []).filter((name) => names.has(name));
  const rows = rowsOf(query?.filter);
  return {
    columns: columns.length > 0 ? columns : fields.slice(0, 4).map((field) => field.field),
    rows: rows ?? [],
    rawFilter: rows === null ? query?.filter : undefined,
    sort: query?.sort?.[0] ?? null,
    limit: query?.limit ?? 25,
    search: query?.search ?? '',
  };
}

export function ItemsPage() {
  const { collection } = useParams({ strict: false }) as { collection: string };
  const client = useClient();
  const info = useQuery({ queryKey: ['collection', collection], queryFn: () => getCollection(client, collection) });
  const fields = useQuery({ queryKey: ['fields', collection], queryFn: () => getFields(client, collection) });
  const relations = useQuery({ queryKey: ['relations'], queryFn: () => getRelations(client) });
  const effective = useQuery({
    queryKey: ['presets', 'effective', collection],
    staleTime: 0,
    queryFn: async () => (await call<{ data: Preset | null }>(client, 'GET', '/presets/effective', { query: { collection } })).body.data,
  });
  const ready = fields.data && relations.data && effective.isSuccess;
  return (
    <section className="stack">
      <PageHeader
        title={info.data?.displayName ?? collection}
        actions={<Link className="button primary" to="/collections/$collection/new" params={{ collection }}>New item</Link>}
      >
        {info.data?.note ? <p className="muted">{info.data.note}</p> : null}
      </PageHeader>
      <QueryState query={fields} />
      <QueryState query={effective} />
      {ready ? (
        <ItemsView
          key={collection}
          collection={collection}
          fields={fields.data!.filter((field) => !isAlias(field, relations.data!, collection))}
          preset={effective.data ?? null}
        />
      ) : null}
    </section>
  );
}

function ItemsView({ collection, fields, preset }: { collection: string; fields: FieldInfo[]; preset: Preset | null }) {
  const client = useClient();
  const [view, setView] = useState<View>(() => viewOf(preset?.query, fields));
  const [draftRows, setDraftRows] = useState<FilterRow[]>(view.rows);
  const [searchText, setSearchText] = useState(view.search);
  const [offset, setOffset] = useState(0);
  const [loaded, setLoaded] = useState<string | null>(null);
  const live = useLiveChanges(collection, null);

  const filter = view.rawFilter ?? filterOf(view.rows, fields);
  const countCheap = filter === undefined;
  const list = useQuery({
    queryKey: ['items', collection, 'list', view.columns.join(','), JSON.stringify(filter ?? null), view.sort, view.limit, offset],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await call<{ data: Item[]; meta?: { total?: number } }>(client, 'GET', `/items/${enc(collection)}`, {
        query: {
          fields: ['id', ...view.columns].join(','),
          limit: view.limit,
          offset,
          meta: countCheap ? 'total_count' : 'none',
          ...(filter ? { filter: JSON.stringify(filter) } : {}),
          ...(view.sort ? { sort: view.sort } : {}),
        },
      })).body,
  });

  const change = (next: Partial<View>) => {
    setView((current) => ({ ...current, ...next }));
    setOffset(0);
  };
  const applyPreset = (chosen: Preset) => {
    const next = viewOf(chosen.query, fields);
    setView(next);
    setDraftRows(next.rows);
    setSearchText(next.search);
    setOffset(0);
    setLoaded(chosen.bookmark);
  };
  const toggleSort = (name: string) => change({ sort: view.sort === name ? `-${name}` : view.sort === `-${name}` ? null : name });
  const query: PresetQuery = {
    fields: view.columns,
    ...(filter ? { filter } : {}),
    ...(view.sort ? { sort: [view.sort] } : {}),
    limit: view.limit,
    ...(view.search ? { search: view.search } : {}),
  };
  const rows = list.data?.data ?? [];
  const total = list.data?.meta?.total;
  const hasNext = total !== undefined ? offset + view.limit < total : rows.length === view.limit;

  return (
    <>
      {live ? <p className="notice" role="status">{live.text}</p> : null}
      <ExtensionSlot location="collection.toolbar" heading="Extensions for this collection" />
      <PresetsBar collection={collection} query={query} sourceScope={preset?.sourceScope ?? null} onLoad={applyPreset} />
      {loaded ? <p className="muted" role="status">Bookmark “{loaded}” loaded.</p> : null}
      <form className="row" role="search" onSubmit={(event: FormEvent) => {
        event.preventDefault();
        change({ search: searchText.trim() });
      }}>
        <label htmlFor="item-search">Search {collection}</label>
        <input id="item-search" type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)} />
        <button type="submit">Search</button>
        {view.search ? <button type="button" onClick={() => { setSearchText(''); change({ search: '' }); }}>Clear search</button> : null}
      </form>
      {view.search ? <SearchResults collection={collection} q={view.search} /> : null}
      <div className="content-toolbar">
        <details className="card">
          <summary>Columns ({view.columns.length})</summary>
          <fieldset>
            <legend className="sr-only">Visible columns</legend>
            {fields.map((field) => (
              <label key={field.field} className="content-check">
                <input
                  type="checkbox"
                  checked={view.columns.includes(field.field)}
                  onChange={(event) => change({ columns: event.target.checked ? fields.map((f) => f.field).filter((name) => name === field.field || view.columns.includes(name)) : view.columns.filter((name) => name !== field.field) })}
                />{' '}
                {field.field}
              </label>
            ))}
          </fieldset>
        </details>
        <form className="card" onSubmit={(event: FormEvent) => {
          event.preventDefault();
          change({ rows: draftRows, rawFilter: undefined });
        }}>
          <FilterBuilder rows={draftRows} fields={fields} onChange={setDraftRows} />
          {view.rawFilter ? <p className="muted">A saved filter applies: <code>{JSON.stringify(view.rawFilter)}</code></p> : null}
          <button type="submit" className="primary">Apply filters</button>
        </form>
      </div>
      <QueryState query={list} />
      <table className="data" aria-label={`${collection} items`}>
        <thead>
          <tr>
            {view.columns.map((name) => {
              const sorted = view.sort === name ? 'ascending' : view.sort === `-${name}` ? 'descending' : 'none';
              return (
                <th key={name} aria-sort={sorted}>
                  <button type="button" className="content-sort" onClick={() => toggleSort(name)}>
                    {name} <span aria-hidden="true">{sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''}</span>
                  </button>
                </th>
              );
            })}
            <th><span className="sr-only">Open</span></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((item) => (
            <tr key={item.id}>
              {view.columns.map((name) => <td key={name}>{cellText(item[name])}</td>)}
              <td><Link to="/collections/$collection/$id" params={{ collection, id: item.id }} aria-label={`Open item ${item.id}`}>Open</Link></td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && rows.length === 0 ? <p className="muted">No items match.</p> : null}
      <nav className="pager" aria-label="Pages">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - view.limit))}>Previous</button>
        <span role="status">
          {rows.length > 0 ? `Items ${offset + 1}–${offset + rows.length}` : 'No items'}
          {total !== undefined ? ` of ${total}` : ''}
        </span>
        <button type="button" disabled={!hasNext} onClick={() => setOffset(offset + view.limit)}>Next</button>
        <label htmlFor="page-size">Per page</label>
        <select id="page-size" value={view.limit} onChange={(event) => change({ limit: Number(event.target.value) })}>
          {[...new Set([10, 25, 50, 100, 200, view.limit])].sort((a, b) => a - b).map((size) => <option key={size} value={size}>{size}</option>)}
        </select>
      </nav>
    </>
  );
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
