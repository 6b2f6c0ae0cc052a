// The files area's calls to the service (docs/files.md): file records listed with the query language,
// uploads with progress (XMLHttpRequest: fetch cannot report an upload's progress), transform presets,
// and an asset's bytes as an object URL (assets need the bearer, which an <img src> cannot send).
import { SvcError, type SvcClient, type SvcErrorEntry } from '@svc-cms/sdk';

export interface FileRecord {
  id: string;
  key: string;
  filename: string;
  title: string | null;
  type: string;
  size: number;
  tags: string[];
  folder: string | null;
  width: number | null;
  height: number | null;
  source: 'upload' | 'media';
  uploadedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Preset {
  id: string;
  key: string;
  name: string;
  dsl: Record<string, unknown>;
}

export interface FilePage {
  data: FileRecord[];
  meta: { total: number; page: number; pageSize: number };
}

export interface FileQuery {
  /** A folder's name, `''` for files in no folder, undefined for every folder. */
  folder?: string | undefined;
  tag?: string | undefined;
  /** The start of the title (the list filters titles with `_starts_with`). */
  title?: string | undefined;
  page: number;
  limit: number;
}

/** The list's filter in the query language, as JSON (`filter=`). */
export function fileFilter(query: Omit<FileQuery, 'page' | 'limit'>): Record<string, unknown> | null {
  const parts: Record<string, unknown>[] = [];
  if (query.folder === '') parts.push({ folder: { _null: true } });
  else if (query.folder !== undefined) parts.push({ folder: { _eq: query.folder } });
  if (query.tag) parts.push({ tags: { _json_contains: [query.tag] } });
  if (query.title) parts.push({ title: { _starts_with: query.title } });
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : { _and: parts };
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export async function listFiles(client: SvcClient, query: FileQuery): Promise<FilePage> {
  const search = new URLSearchParams({ limit: String(query.limit), page: String(query.page) });
  const filter = fileFilter(query);
  if (filter) search.set('filter', JSON.stringify(filter));
  return json<FilePage>(await client.fetch(new Request(`${window.location.origin}/api/v1/files?${search.toString()}`)));
}

/** Every folder some file is in (the service keeps folders as the files' `folder` field), sorted. */
export async function listFolders(client: SvcClient): Promise<string[]> {
  const folders = new Set<string>();
  for (let page = 1; page <= 20; page += 1) {
    const search = new URLSearchParams({ limit: '200', page: String(page), filter: JSON.stringify({ folder: { _nnull: true } }) });
    const answer = await json<FilePage>(await client.fetch(new Request(`${window.location.origin}/api/v1/files?${search.toString()}`)));
    for (const file of answer.data) if (file.folder) folders.add(file.folder);
    if (page * answer.meta.pageSize >= answer.meta.total) break;
  }
  return [...folders].sort((a, b) => a.localeCompare(b));
}

export async function getFile(client: SvcClient, id: string): Promise<FileRecord> {
  const { data } = await client.api.GET('/api/v1/files/{id}', { params: { path: { id } } });
  return (data as unknown as { data: FileRecord }).data;
}

export async function updateFile(client: SvcClient, id: string, body: { title?: string | null; tags?: string[]; folder?: string | null }): Promise<FileRecord> {
  const { data } = await client.api.PATCH('/api/v1/files/{id}', { params: { path: { id } }, body });
  return (data as unknown as { data: FileRecord }).data;
}

export async function deleteFile(client: SvcClient, id: string): Promise<void> {
  await client.api.DELETE('/api/v1/files/{id}', { params: { path: { id } } });
}

/** Moves every file of a folder to another name (a folder is the name its files share). */
export async function renameFolder(client: SvcClient, from: string, to: string): Promise<number> {
  let moved = 0;
  // Each pass lists the first page of what is still in the old folder: moved files leave it.
  for (let pass = 0; pass < 50; pass += 1) {
    const page = await listFiles(client, { folder: from, page: 1, limit: 200 });
    if (page.data.length === 0) break;
    for (const file of page.data) {
      await updateFile(client, file.id, { folder: to });
      moved += 1;
    }
  }
  return moved;
}

export async function listPresets(client: SvcClient): Promise<Preset[]> {
  const { data } = await client.api.GET('/api/v1/transform-presets');
  return (data as unknown as { data: Preset[] }).data;
}

export async function createPreset(client: SvcClient, body: { key: string; name: string; dsl: Record<string, unknown> }): Promise<Preset> {
  const { data } = await client.api.POST('/api/v1/transform-presets', { body });
  return (data as unknown as { data: Preset }).data;
}

/** The asset (or its derivative with these parameters) as an object URL; the caller revokes it. */
export async function assetObjectUrl(client: SvcClient, id: string, params: Record<string, string>): Promise<string> {
  const search = new URLSearchParams(params).toString();
  const response = await client.fetch(new Request(`${window.location.origin}/api/v1/assets/${encodeURIComponent(id)}${search ? `?${search}` : ''}`));
  return URL.createObjectURL(await response.blob());
}

export interface UploadFields {
  title?: string | undefined;
  folder?: string | undefined;
  tags: string[];
}

export type Progress = (loaded: number, total: number) => void;

function envelopeError(status: number, text: string): SvcError {
  let errors: SvcErrorEntry[] = [];
  try {
    const body = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(body.errors)) {
      errors = body.errors
        .filter((entry): entry is SvcErrorEntry => typeof entry === 'object' && entry !== null && typeof (entry as SvcErrorEntry).code === 'string' && typeof (entry as SvcErrorEntry).message === 'string')
        .map((entry) => ({ code: entry.code, message: entry.message, path: Array.isArray(entry.path) ? entry.path : [], extensions: entry.extensions ?? {} }));
    }
  } catch {
    // not JSON: the status speaks alone
  }
  return new SvcError(status, errors, '');
}

/** One request through XMLHttpRequest, its upload progress reported; resolves with the parsed answer. */
function send(method: string, url: string, headers: Record<string, string>, body: XMLHttpRequestBodyInit, onProgress: Progress): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded, event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(xhr.responseText ? JSON.parse(xhr.responseText) : null);
        } catch {
          resolve(null);
        }
      } else reject(envelopeError(xhr.status, xhr.responseText));
    };
    // A refused upload may close the connection before the body is sent: no answer to read.
    xhr.onerror = () => reject(new Error('The upload was interrupted (the service closed the connection or is unreachable)'));
    xhr.send(body);
  });
}

/** The site and bearer headers a signed-in request carries (the token stays in memory: read it now). */
function authHeaders(client: SvcClient): Record<string, string> {
  const headers: Record<string, string> = {};
  if (client.site) headers['X-Svc-Site'] = client.site;
  if (client.auth.token) headers.Authorization = `Bearer ${client.auth.token}`;
  return headers;
}

/** Sends once, and again after a refresh when the access token had expired. */
async function withRefresh<T>(client: SvcClient, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (error instanceof SvcError && error.status === 401 && error.code === 'TOKEN_EXPIRED') {
      await client.auth.refresh();
      return attempt();
    }
    throw error;
  }
}

/** `POST /files` with a multipart form: the file and its record in one call. */
export async function uploadMultipart(client: SvcClient, file: File, fields: UploadFields, onProgress: Progress): Promise<FileRecord> {
  const answer = await withRefresh(client, () => {
    const form = new FormData();
    if (fields.title) form.append('title', fields.title);
    if (fields.folder) form.append('folder', fields.folder);
    for (const tag of fields.tags) form.append('tags', tag);
    form.append('file', file, file.name);
    return send('POST', `${window.location.origin}/api/v1/files`, authHeaders(client), form, onProgress);
  });
  return (answer as { data: FileRecord }).data;
}

/** The presigned flow: a signed URL, the bytes PUT to it, then the record registered. */
export async function uploadPresigned(client: SvcClient, file: File, fields: UploadFields, onProgress: Progress): Promise<FileRecord> {
  const type = file.type || 'application/octet-stream';
  const { data } = await client.api.POST('/api/v1/files/presigned-url', { body: { filename: file.name, type, size: file.size } });
  const signed = (data as unknown as { data: { url: string; method: string; headers: Record<string, string>; key: string } }).data;
  // The signed URL carries its own credential (and the site header it was signed for): no bearer.
  await send(signed.method, signed.url, signed.headers, file, onProgress);
  const { data: registered } = await client.api.POST('/api/v1/files', {
    body: { key: signed.key, filename: file.name, tags: fields.tags, ...(fields.title ? { title: fields.title } : {}), ...(fields.folder ? { folder: fields.folder } : {}) },
  });
  return (registered as unknown as { data: FileRecord }).data;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** Tags typed as a comma-separated list. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(',').map((tag) => tag.trim()).filter(Boolean))];
}
