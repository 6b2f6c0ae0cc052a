// Create and edit one item: an editor per field, the service's refusals at their fields, If-Match with
// the item's version (a 412 says someone else changed it), the save action the user or site chose
// (stay, return to the list, start a new item), and live updates from others through realtime.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { SvcError } from '@svc-cms/sdk';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useClient } from '../../session.tsx';
import { useTheme } from '../../theme.tsx';
import { formErrors } from '../../ui/errors.ts';
import { PageHeader, QueryState } from '../../ui/parts.tsx';
import { enc, getCollection, getFields, getRelations, hasWorkflow, itemLabel, type FieldInfo, type Item, type RelationInfo } from './api.ts';
import { call } from '../../api.ts';
import { FieldEditor } from './FieldEditors.tsx';
import { O2MList } from './RelationEditors.tsx';
import { useLiveChanges, type LiveNotice } from './live.ts';
import { ExtensionSlot } from '../extensions/ExtensionSlot.tsx';

type SaveAction = 'stay' | 'return' | 'create_new';

function useSaveAction(): SaveAction {
  const client = useClient();
  const { site } = useTheme();
  const preferences = useQuery({
    queryKey: ['me', 'preferences'],
    queryFn: async () => (await client.api.GET('/api/v1/me/preferences')).data!.data as Record<string, unknown>,
  });
  const mine = preferences.data?.saveAction;
  if (mine === 'stay' || mine === 'return' || mine === 'create_new') return mine;
  return site?.defaultSaveAction ?? 'stay';
}

function useSchema(collection: string) {
  const client = useClient();
  const info = useQuery({ queryKey: ['collection', collection], queryFn: () => getCollection(client, collection) });
  const fields = useQuery({ queryKey: ['fields', collection], queryFn: () => getFields(client, collection) });
  const relations = useQuery({ queryKey: ['relations'], queryFn: () => getRelations(client) });
  return { info, fields, relations };
}

/** The to-many lists shown under an item: o2m aliases of this collection, and m2o fields elsewhere pointing here. */
function toManyOf(collection: string, relations: RelationInfo[]): { alias: string; related: string; relatedField: string }[] {
  const lists: { alias: string; related: string; relatedField: string }[] = [];
  for (const relation of relations) {
    if (relation.kind === 'o2m' && relation.collection === collection && relation.relatedCollection && relation.relatedField) {
      lists.push({ alias: relation.field, related: relation.relatedCollection, relatedField: relation.relatedField });
    } else if (relation.kind === 'm2o' && relation.relatedCollection === collection && relation.relatedField) {
      if (!lists.some((list) => list.alias === relation.relatedField)) lists.push({ alias: relation.relatedField, related: relation.collection, relatedField: relation.field });
    }
  }
  return lists;
}

export function NewItemPage() {
  const { collection } = useParams({ strict: false }) as { collection: string };
  const [generation, setGeneration] = useState(0);
  return <ItemForm key={`new-${collection}-${generation}`} collection={collection} id={null} onFresh={() => setGeneration((n) => n + 1)} />;
}

export function EditItemPage() {
  const { collection, id } = useParams({ strict: false }) as { collection: string; id: string };
  return <ItemForm key={`${collection}/${id}`} collection={collection} id={id} onFresh={() => undefined} />;
}

function ItemForm({ collection, id, onFresh }: { collection: string; id: string | null; onFresh(): void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const saveAction = useSaveAction();
  const { info, fields, relations } = useSchema(collection);
  const language = useQuery({
    queryKey: ['site', 'language'],
    queryFn: async () => ((await call<{ data: { defaultLanguage?: string } }>(client, 'GET', '/site')).body.data.defaultLanguage ?? 'en'),
  });
  const item = useQuery({
    queryKey: ['items', collection, 'item', id],
    enabled: id !== null,
    staleTime: 0,
    queryFn: async () => {
      const { body, response } = await call<{ data: Item }>(client, 'GET', `/items/${enc(collection)}/${enc(id!)}`);
      const version = Number(/\d+/.exec(response.headers.get('etag') ?? '')?.[0] ?? NaN);
      return { item: body.data, version: Number.isNaN(version) ? null : version };
    },
  });
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [baseline, setBaseline] = useState<Record<string, unknown>>({});
  const [version, setVersion] = useState<number | null>(null);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const ownVersions = useRef(new Set<number>());

  // The loaded item becomes the form's values (again after a reload, or a live update when nothing was edited).
  const loadedVersion = item.data?.version;
  const dirty = useMemo(() => Object.keys(values).some((key) => JSON.stringify(values[key]) !== JSON.stringify(baseline[key])), [values, baseline]);
  useEffect(() => {
    if (!item.data) return;
    if (dirty && version !== null) return;
    setValues(item.data.item);
    setBaseline(item.data.item);
    setVersion(item.data.version);
    // Only when a new version arrives.
  }, [loadedVersion]);

  const live: LiveNotice | null = useLiveChanges(collection, id, (signalVersionOwn) => signalVersionOwn !== null && ownVersions.current.has(signalVersionOwn));

  const m2oOf = (field: FieldInfo) => relations.data?.find((relation) => relation.kind === 'm2o' && relation.collection === collection && relation.field === field.field);
  const lists = toManyOf(collection, relations.data ?? []);
  const editable = (fields.data ?? []).filter((field) => !lists.some((list) => list.alias === field.field));
  const errors = formErrors(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    if (Object.values(problems).some(Boolean)) {
      setError(new Error('Fix the fields marked above first.'));
      return;
    }
    const changed: Record<string, unknown> = {};
    for (const field of editable) {
      const name = field.field;
      if (!(name in values)) continue;
      if (id !== null && JSON.stringify(values[name]) === JSON.stringify(baseline[name])) continue;
      if (id === null && (values[name] === null || values[name] === '')) continue;
      changed[name] = values[name];
    }
    setSaving(true);
    try {
      const { body, response } = id === null
        ? await call<{ data: Item }>(client, 'POST', `/items/${enc(collection)}`, { body: changed })
        : await call<{ data: Item }>(client, 'PATCH', `/items/${enc(collection)}/${enc(id)}`, { body: changed, headers: version !== null ? { 'if-match': `"${version}"` } : {} });
      const newVersion = Number(/\d+/.exec(response.headers.get('etag') ?? '')?.[0] ?? NaN);
      if (!Number.isNaN(newVersion)) ownVersions.current.add(newVersion);
      setError(null);
      await queryClient.invalidateQueries({ queryKey: ['items', collection, 'list'] });
      const savedId = body.data.id;
      if (saveAction === 'return') {
        await navigate({ to: '/collections/$collection', params: { collection } });
      } else if (saveAction === 'create_new') {
        if (id === null) onFresh();
        else await navigate({ to: '/collections/$collection/new', params: { collection } });
      } else if (id === null) {
        await navigate({ to: '/collections/$collection/$id', params: { collection, id: savedId } });
      } else {
        setValues(body.data);
        setBaseline(body.data);
        if (!Number.isNaN(newVersion)) setVersion(newVersion);
        queryClient.setQueryData(['items', collection, 'item', id], { item: body.data, version: Number.isNaN(newVersion) ? null : newVersion });
        setSaved('Saved.');
      }
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  };

  const reload = async () => {
    setError(null);
    setBaseline({});
    setValues({});
    setVersion(null);
    const fresh = await item.refetch();
    if (fresh.data) {
      setValues(fresh.data.item);
      setBaseline(fresh.data.item);
      setVersion(fresh.data.version);
    }
  };

  const conflict = error instanceof SvcError && error.status === 412;
  const title = id === null ? `New ${info.data?.displayName ?? collection} item` : `${itemLabel(values.id ? (values as Item) : { id }, fields.data)}`;
  return (
    <section className="stack">
      <p><Link to="/collections/$collection" params={{ collection }}>← {info.data?.displayName ?? collection}</Link></p>
      <PageHeader
        title={title}
        actions={id !== null ? (
          <>
            <Link className="button" to="/collections/$collection/$id/history" params={{ collection, id }}>History</Link>
            {hasWorkflow(info.data) ? <Link className="button" to="/collections/$collection/$id/review" params={{ collection, id }}>Review</Link> : null}
          </>
        ) : null}
      >
        <p className="muted">
          {id !== null ? <>Item <code>{id}</code>{version !== null ? ` · version ${version}` : ''} · </> : null}
          After saving: {saveAction === 'stay' ? 'stay on the item' : saveAction === 'return' ? 'return to the list' : 'start a new item'}
        </p>
      </PageHeader>
      {live ? (
        <div className="notice" role="status">
          {live.text}{' '}
          {dirty ? <button type="button" onClick={() => void reload()}>Reload their version</button> : null}
        </div>
      ) : null}
      <QueryState query={fields} />
      <QueryState query={relations} />
      {id !== null ? <QueryState query={item} /> : null}
      {fields.data && relations.data && (id === null || item.data) ? (
        <form onSubmit={(event) => void submit(event)} noValidate aria-label={id === null ? 'New item' : 'Edit item'}>
          {editable.map((field) => (
            <FieldEditor
              key={field.field}
              field={field}
              m2o={m2oOf(field)}
              value={values[field.field] ?? null}
              error={errors.fields[field.field] ?? problems[field.field]}
              defaultLanguage={language.data ?? 'en'}
              onChange={(value) => setValues((current) => ({ ...current, [field.field]: value }))}
              onProblem={(problem) => setProblems((current) => ({ ...current, [field.field]: problem ?? '' }))}
            />
          ))}
          {conflict ? (
            <div className="alert" role="alert">
              This item was changed by someone else — reload to see their version (your edits here would be lost). {' '}
              <button type="button" onClick={() => void reload()}>Reload</button>
            </div>
          ) : errors.general.length > 0 ? (
            <div className="alert" role="alert">{errors.general.map((message) => <p key={message}>{message}</p>)}</div>
          ) : null}
          {saved ? <p className="ok" role="status">{saved}</p> : null}
          <div className="row">
            <button type="submit" className="primary" disabled={saving}>{saving ? 'Saving…' : id === null ? 'Create' : 'Save'}</button>
            <Link className="button" to="/collections/$collection" params={{ collection }}>Cancel</Link>
          </div>
        </form>
      ) : null}
      {id !== null && lists.length > 0 ? lists.map((list) => <O2MList key={list.alias} itemId={id} related={list.related} relatedField={list.relatedField} label={`${list.alias} (${list.related})`} />) : null}
      {id !== null ? <ExtensionSlot location="item.sidebar" heading="Extensions for this item" /> : null}
    </section>
  );
}
