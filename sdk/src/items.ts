// `client.items('articles')`: the item routes of one collection, typed by the site's own collection
// types (siteTypes.ts): the query is checked against the item type, the answer narrowed to `fields`.
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import type { Answered, FieldPath, ItemInput, ListQuery, Shallow } from './itemTypes.ts';

export interface ItemListMeta {
  limit: number;
  offset: number;
  /** Absent with `meta: 'none'`. */
  total?: number;
}

export interface ItemsResource<T> {
  list<const F extends FieldPath<T> = never>(query?: ListQuery<T, F>): Promise<{ data: Answered<T, F>[]; meta: ItemListMeta }>;
  /** One item with its version (the ETag), for a later `update(…, { ifMatch })`. */
  get<const F extends FieldPath<T> = never>(id: string, query?: { fields?: readonly F[] }): Promise<{ data: Answered<T, F>; version: number }>;
  create(body: ItemInput<T>): Promise<{ data: Shallow<T>; version: number }>;
  /** A partial update; with `ifMatch` it lands only on that version (412 PRECONDITION_FAILED otherwise), and is safe to repeat. */
  update(id: string, changes: ItemInput<T>, options?: { ifMatch?: number }): Promise<{ data: Shallow<T>; version: number }>;
  delete(id: string): Promise<void>;
}

/** The version an answer's ETag names (`"3"` or `W/"3"`). */
function versionOf(response: Response): number {
  const match = /"(\d+)"/.exec(response.headers.get('etag') ?? '');
  return match ? Number(match[1]) : 0;
}

/** A query as it is sent: the types above checked it against the item type already. */
interface SentQuery {
  fields?: readonly string[];
  filter?: unknown;
  sort?: readonly string[];
  limit?: number;
  offset?: number;
  search?: string;
  meta?: 'total_count' | 'none';
}

/** The query string of a list: JSON filter, comma-separated fields and sort, numbers as text. */
function listParameters(query: SentQuery): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (query.fields?.length) parameters.fields = query.fields.join(',');
  if (query.filter) parameters.filter = JSON.stringify(query.filter);
  if (query.sort?.length) parameters.sort = query.sort.join(',');
  if (query.limit !== undefined) parameters.limit = String(query.limit);
  if (query.offset !== undefined) parameters.offset = String(query.offset);
  if (query.search !== undefined) parameters.search = query.search;
  if (query.meta !== undefined) parameters.meta = query.meta;
  return parameters;
}

type Body = Record<string, unknown>;

/**
 * The routes, untyped inside: the answers are the service's JSON, which the item type describes as
 * the query narrowed it (one cast, at the end).
 */
export function itemsResource<T>(api: Client<paths>, collection: string): ItemsResource<T> {
  const path = { collection };
  const resource = {
    async list(query: SentQuery = {}) {
      const { data } = await api.GET('/api/v1/items/{collection}', { params: { path, query: listParameters(query) } });
      return data;
    },
    async get(id: string, query: { fields?: readonly string[] } = {}) {
      const fields = query.fields?.length ? { fields: query.fields.join(',') } : {};
      const { data, response } = await api.GET('/api/v1/items/{collection}/{id}', { params: { path: { ...path, id }, query: fields } });
      return { data: data!.data, version: versionOf(response) };
    },
    async create(body: Body) {
      const { data, response } = await api.POST('/api/v1/items/{collection}', { params: { path }, body });
      return { data: (data as { data: unknown }).data, version: versionOf(response) };
    },
    async update(id: string, changes: Body, options: { ifMatch?: number } = {}) {
      const headers = options.ifMatch !== undefined ? { 'if-match': `"${options.ifMatch}"` } : {};
      const { data, response } = await api.PATCH('/api/v1/items/{collection}/{id}', { params: { path: { ...path, id } }, headers, body: changes });
      return { data: (data as { data: unknown }).data, version: versionOf(response) };
    },
    async delete(id: string) {
      await api.DELETE('/api/v1/items/{collection}/{id}', { params: { path: { ...path, id } } });
    },
  };
  return resource as unknown as ItemsResource<T>;
}
