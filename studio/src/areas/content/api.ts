// The content area's calls to the REST API: one small helper over the client's pipeline (site header,
// token, refresh, errors thrown as SvcError), and the shapes of collections, fields, relations, items
// and presets as the service answers them (docs/content.md, docs/presets.md).
import type { SvcClient } from '@svc-cms/sdk';
import { call } from '../../api.ts';

export interface CollectionInfo {
  name: string;
  displayName?: string | null;
  note?: string | null;
  singleton?: boolean;
  meta?: Record<string, unknown> | null;
  editorialWorkflow?: boolean;
}

export interface FieldInfo {
  field: string;
  type: string;
  interface?: string | null;
  options?: Record<string, unknown> | null;
  required?: boolean;
  readonly?: boolean;
  sort?: number | null;
}

export interface RelationInfo {
  id: string;
  kind: 'm2o' | 'o2m' | 'm2m' | 'm2a';
  collection: string;
  field: string;
  relatedCollection: string | null;
  relatedField: string | null;
}

export type Item = Record<string, unknown> & { id: string };

export interface PresetQuery {
  fields?: string[];
  filter?: Record<string, unknown>;
  sort?: string[];
  limit?: number;
  search?: string;
}

export interface Preset {
  id: string;
  collection: string;
  bookmark: string | null;
  userId: string | null;
  roleId: string | null;
  scope: 'user' | 'role' | 'global';
  sourceScope?: 'user' | 'role' | 'global';
  layout: string;
  query: PresetQuery;
}

export const enc = encodeURIComponent;

export async function getCollections(client: SvcClient): Promise<CollectionInfo[]> {
  return (await call<{ data: CollectionInfo[] }>(client, 'GET', '/collections')).body.data;
}

export async function getCollection(client: SvcClient, name: string): Promise<CollectionInfo> {
  return (await call<{ data: CollectionInfo }>(client, 'GET', `/collections/${enc(name)}`)).body.data;
}

export async function getFields(client: SvcClient, collection: string): Promise<FieldInfo[]> {
  const fields = (await call<{ data: FieldInfo[] }>(client, 'GET', `/fields/${enc(collection)}`)).body.data;
  return [...fields].sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0));
}

export async function getRelations(client: SvcClient): Promise<RelationInfo[]> {
  return (await call<{ data: RelationInfo[] }>(client, 'GET', '/relations')).body.data;
}

/** Whether the collection has the editorial workflow on (the flag may sit at the top or in `meta`). */
export function hasWorkflow(collection: CollectionInfo | undefined): boolean {
  return collection?.editorialWorkflow === true || collection?.meta?.editorialWorkflow === true;
}

/** A short text for an item: its first string field's value, else its id. */
export function itemLabel(item: Record<string, unknown>, fields?: FieldInfo[]): string {
  const candidates = fields ? fields.filter((field) => field.type === 'string').map((field) => field.field) : ['title', 'name', 'label'];
  for (const name of [...candidates, 'title', 'name']) {
    const value = item[name];
    if (typeof value === 'string' && value) return value;
  }
  return String(item.id);
}

/** Field types that hold no column of their own in the list (aliases of to-many relations). */
export function isAlias(field: FieldInfo, relations: RelationInfo[], collection: string): boolean {
  return relations.some((relation) => (relation.kind === 'o2m' || relation.kind === 'm2m' || relation.kind === 'm2a') && relation.collection === collection && relation.field === field.field) || field.type === 'alias';
}

/** Who a user id is: their email when the caller may look users up (administrators), else the id. */
export async function userName(client: SvcClient, id: string): Promise<string> {
  try {
    const user = (await call<{ data: { email?: string } }>(client, 'GET', `/users/${enc(id)}`)).body.data;
    return user.email ?? id;
  } catch {
    return id;
  }
}
