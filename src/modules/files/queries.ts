// Reads of the files and transform presets read models. GET /files filters with the query language
// over the columns below, each filter served by an index of migration 0370.
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { compileFilter, readModelFields, type DynamicValueContext, type FilterTree } from '../../query/index.ts';
import type { FileView, PresetView } from './schemas.ts';

export const FILE_FIELDS = readModelFields({
  title: { column: 'title', kind: 'text', operators: ['_eq', '_starts_with', '_null', '_nnull'] },
  type: { column: 'type', kind: 'text', operators: ['_eq', '_in', '_starts_with'] },
  tags: { column: 'tags', kind: 'json', operators: ['_json_contains'] },
  folder: { column: 'folder', kind: 'text', operators: ['_eq', '_in', '_null', '_nnull'] },
  createdAt: { column: 'created_at', kind: 'timestamptz', operators: ['_gt', '_gte', '_lt', '_lte'] },
});

interface FileRow {
  id: string;
  key: string;
  filename: string;
  title: string | null;
  type: string;
  size: string;
  tags: string[];
  folder: string | null;
  width: number | null;
  height: number | null;
  source: 'upload' | 'media';
  uploaded_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const fileOf = (row: FileRow): FileView => ({
  id: row.id,
  key: row.key,
  filename: row.filename,
  title: row.title,
  type: row.type,
  size: Number(row.size),
  tags: row.tags,
  folder: row.folder,
  width: row.width,
  height: row.height,
  source: row.source,
  uploadedBy: row.uploaded_by,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function listFiles(
  tx: Queryable,
  siteId: string,
  query: { filter: FilterTree | null; limit: number; page: number; dynamic: DynamicValueContext },
): Promise<{ files: FileView[]; total: number }> {
  const where = sql`f.site_id = ${siteId} AND ${compileFilter(query.filter, { ...query.dynamic, fields: FILE_FIELDS, alias: 'f' })}`;
  const rows = await tx.query<FileRow>(
    sql`SELECT f.* FROM files f WHERE ${where} ORDER BY f.created_at DESC, f.id LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
  );
  const [count] = await tx.query<{ total: number }>(sql`SELECT count(*)::int AS total FROM files f WHERE ${where}`);
  return { files: rows.map(fileOf), total: count?.total ?? 0 };
}

export async function findFile(tx: Queryable, siteId: string, fileId: string): Promise<FileView | null> {
  const [row] = await tx.query<FileRow>(sql`SELECT * FROM files WHERE site_id = ${siteId} AND id = ${fileId}`);
  return row ? fileOf(row) : null;
}

export async function findFileByKey(tx: Queryable, siteId: string, key: string): Promise<FileView | null> {
  const [row] = await tx.query<FileRow>(sql`SELECT * FROM files WHERE site_id = ${siteId} AND key = ${key}`);
  return row ? fileOf(row) : null;
}

interface PresetRow {
  id: string;
  key: string;
  name: string;
  dsl: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const presetOf = (row: PresetRow): PresetView => ({
  id: row.id,
  key: row.key,
  name: row.name,
  dsl: row.dsl,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export async function listPresets(tx: Queryable, siteId: string): Promise<PresetView[]> {
  return (await tx.query<PresetRow>(sql`SELECT * FROM transform_presets WHERE site_id = ${siteId} ORDER BY key LIMIT 1000`)).map(presetOf);
}

export async function findPreset(tx: Queryable, siteId: string, presetId: string): Promise<PresetView | null> {
  const [row] = await tx.query<PresetRow>(sql`SELECT * FROM transform_presets WHERE site_id = ${siteId} AND id = ${presetId}`);
  return row ? presetOf(row) : null;
}

export async function findPresetByKey(tx: Queryable, siteId: string, key: string): Promise<PresetView | null> {
  const [row] = await tx.query<PresetRow>(sql`SELECT * FROM transform_presets WHERE site_id = ${siteId} AND key = ${key}`);
  return row ? presetOf(row) : null;
}
