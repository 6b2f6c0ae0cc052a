// A multipart upload to POST /files (docs/files.md "Uploads"): one `file` part and optional `title`,
// `tags` (repeated, one tag each) and `folder` fields, in any order. The file part streams into the
// upload guard's temporary file, counted against the site's cap as it arrives (never held in memory);
// once the form has ended the fields are checked as the JSON registration checks them, the file is
// inspected, and its object and its record are made in one registration, the object written under the
// registration's lock. Like the raw upload, it is no command: its input is the request's byte stream.
import { rm } from 'node:fs/promises';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/shared/appError.ts';
import type { SiteObjectStorage } from '../../../infra/storage/objectStorage.ts';
import type { AppContext } from '../../runtime/context.ts';
import { registerFile } from './fileHandlers.ts';
import { canonicalContentType, type FileView, uploadFilename, uploadFormFields } from './schemas.ts';
import { inspectUpload, receiveToTempFile } from './uploadGuard.ts';
import { uploadPolicyOf } from './uploadPolicy.ts';
import { newUploadKey, tempDir } from './uploads.ts';

/** The name of the form's file part. */
export const FILE_PART = 'file';
const FIELDS = new Set(['title', 'tags', 'folder']);
/** Bytes of one field's value: more than the longest value the fields take (500 characters of UTF-8). */
const MAX_FIELD_BYTES = 4_096;
/** Fields in a form: the 100 tags a file may have, its title and folder, and room for nothing more. */
const MAX_FIELDS = 102;

const invalid = (path: (string | number)[], message: string) => new AppError('VALIDATION_FAILED', message, { path: ['body', ...path] });
/** The guard's refusals (413, 415, 422) are about the file part: they answer at its path. */
const atFilePart = (error: unknown) => (error instanceof AppError && error.path.length === 0 ? error.at(['body', FILE_PART]) : error);

interface ReceivedFile {
  path: string;
  bytes: number;
  filename: string;
  contentType: string;
}

/**
 * The form's parts, with what the multipart parser refuses (a malformed body, too many parts or fields,
 * a prototype key as a name) as 400 VALIDATION_FAILED at `body`. A file's own bytes are counted by the
 * guard: the parser stops a file one byte over the cap, so the guard's 413 is what answers.
 */
async function* formParts(request: FastifyRequest, maxBytes: number): AsyncGenerator<Multipart> {
  const parts = request.parts({ limits: { fileSize: maxBytes + 1, files: 2, fields: MAX_FIELDS, parts: MAX_FIELDS + 2, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 100 } });
  while (true) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (error) {
      throw formError(error);
    }
    if (next.done) return;
    yield next.value;
  }
}

/** The parser's refusals as the spec's 400; anything else (storage, the database) is not the form's fault. */
function formError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && code.startsWith('FST_')) {
    return invalid([], code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT' ? `A form has at most ${MAX_FIELDS} fields` : `The form was refused: ${String(message)}`);
  }
  if (typeof message === 'string' && /multipart|boundary|part terminated|unexpected end/i.test(message)) return invalid([], `The form is malformed: ${message}`);
  return error;
}

/** Streams the file part into the guard's temporary file, counting its bytes against the cap. */
async function receiveFilePart(context: Pick<AppContext, 'config'>, part: Extract<Multipart, { type: 'file' }>, maxBytes: number): Promise<ReceivedFile> {
  const filename = uploadFilename.safeParse(part.filename);
  if (!filename.success) throw invalid([FILE_PART, 'filename'], `The file's name: ${filename.error.issues[0]!.message}`);
  try {
    const received = await receiveToTempFile(part.file, { dir: await tempDir(context), maxBytes });
    return { ...received, filename: filename.data, contentType: canonicalContentType(part.mimetype) };
  } catch (error) {
    throw atFilePart(formError(error));
  }
}

/** Uploads the form's file under the site's policy and registers it: 201's file record. */
export async function uploadForm(context: AppContext, storage: SiteObjectStorage, request: FastifyRequest): Promise<FileView> {
  const { siteId } = request;
  const policy = await uploadPolicyOf(context, siteId);
  const values: { title?: string; folder?: string; tags?: string[] } = {};
  let file: ReceivedFile | undefined;
  try {
    for await (const part of formParts(request, policy.maxBytes)) {
      const name = part.fieldname;
      if (part.type === 'file') {
        if (name !== FILE_PART) throw invalid([name], `"${name}" is not a field of this form: the file goes in the part named "${FILE_PART}"`);
        if (file) throw invalid([FILE_PART], 'A form uploads one file: it has one part named "file"');
        file = await receiveFilePart(context, part, policy.maxBytes);
        continue;
      }
      if (name === FILE_PART) throw invalid([FILE_PART], 'The "file" part is a file (a part with a filename), not a text field');
      if (part.fieldnameTruncated || !FIELDS.has(name)) throw invalid([name], `"${name}" is not a field of this form: it takes file, title, tags and folder`);
      if (part.valueTruncated) throw invalid([name], `"${name}" is longer than ${MAX_FIELD_BYTES} bytes`);
      if (typeof part.value !== 'string') throw invalid([name], `"${name}" is text`);
      if (name === 'tags') (values.tags ??= []).push(part.value);
      else if (values[name as 'title' | 'folder'] !== undefined) throw invalid([name], `"${name}" is given once`);
      else values[name as 'title' | 'folder'] = part.value;
    }
    if (!file) throw invalid([FILE_PART], 'The form has no file: send it in a part named "file"');
    const fields = uploadFormFields.safeParse(values);
    if (!fields.success) {
      const issue = fields.error.issues[0]!;
      throw invalid(issue.path.map((part) => (typeof part === 'number' ? part : String(part))), issue.message);
    }
    const what = await inspectUpload(file, { filename: file.filename, contentType: file.contentType }, { policy, stripMetadata: policy.stripMetadata }).catch((error: unknown) => {
      throw atFilePart(error);
    });
    const key = newUploadKey(file.filename);
    const { path } = file;
    return await registerFile(
      context,
      siteId,
      {
        key,
        filename: file.filename,
        title: fields.data.title ?? null,
        type: what.mimeType,
        size: what.bytes,
        tags: fields.data.tags ?? [],
        folder: fields.data.folder ?? null,
        width: what.width ?? null,
        height: what.height ?? null,
        source: 'upload',
      },
      request.metadata,
      () => storage.putFile(key, path, what.mimeType).then(() => undefined),
    );
  } finally {
    if (file) await rm(file.path, { force: true });
  }
}
