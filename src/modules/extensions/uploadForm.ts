// The multipart form of POST /extensions/upload (docs/extensions.md, "Uploading"): a `bundle` file part
// holding the bundle's bytes (at most MAX_BUNDLE_BYTES, held in memory), and the `signature` (base64)
// and `keyId` text fields, in any order. What it answers is the upload command's input: the bundle as
// its UTF-8 text (decoded strictly, so that its bytes are the ones that were signed).
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { MAX_BUNDLE_BYTES } from '../../../domain/extensions/bundleFormat.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { UploadInput } from './schemas.ts';

export const BUNDLE_PART = 'bundle';
const FIELDS = new Set(['signature', 'keyId']);
const MAX_FIELD_BYTES = 1_024;

const invalid = (path: string[], message: string) => new AppError('VALIDATION_FAILED', message, { path: ['body', ...path] });

/** The parser's refusals as the spec's 400 (a bundle over the bound: 413); anything else is not the form's fault. */
function formError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', `A bundle is at most ${MAX_BUNDLE_BYTES} bytes`, { path: ['body', BUNDLE_PART] });
  if (typeof code === 'string' && code.startsWith('FST_')) return invalid([], `The form was refused: ${String(message)} (it takes one "bundle" file and the "signature" and "keyId" fields)`);
  if (typeof message === 'string' && /multipart|boundary|part terminated|unexpected end/i.test(message)) return invalid([], `The form is malformed: ${message}`);
  return error;
}

async function* formParts(request: FastifyRequest): AsyncGenerator<Multipart> {
  const parts = request.parts({ limits: { fileSize: MAX_BUNDLE_BYTES, files: 1, fields: 2, parts: 3, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 100 } });
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

/** The form's bundle, signature and signer; 415 when the body is not a multipart form. */
export async function readUploadForm(request: FastifyRequest): Promise<UploadInput> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Upload a bundle as multipart/form-data: a "bundle" file part, and the "signature" and "keyId" fields');
  const fields: { signature?: string; keyId?: string } = {};
  let bytes: Buffer | undefined;
  for await (const part of formParts(request)) {
    const name = part.fieldname;
    if (part.type === 'file') {
      if (name !== BUNDLE_PART) throw invalid([name], `"${name}" is not a part of this form: the bundle goes in the file part named "${BUNDLE_PART}"`);
      bytes = await part.toBuffer().catch((error: unknown) => {
        throw formError(error);
      });
      continue;
    }
    if (name === BUNDLE_PART) throw invalid([BUNDLE_PART], 'The bundle is a file part (a part with a filename), not a text field');
    if (part.fieldnameTruncated || !FIELDS.has(name)) throw invalid([name], `"${name}" is not a field of this form: it takes bundle, signature and keyId`);
    if (part.valueTruncated || typeof part.value !== 'string') throw invalid([name], `"${name}" is text of at most ${MAX_FIELD_BYTES} bytes`);
    fields[name as 'signature' | 'keyId'] = part.value.trim();
  }
  if (!bytes || bytes.length === 0) throw invalid([BUNDLE_PART], 'The form has no bundle: send it in a file part named "bundle"');
  let bundle: string;
  try {
    bundle = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'A bundle is UTF-8 JSON text', { path: ['body', BUNDLE_PART], extensions: { reason: 'invalid_bundle' } });
  }
  return { bundle, ...(fields.signature ? { signature: fields.signature } : {}), ...(fields.keyId ? { keyId: fields.keyId } : {}) };
}
