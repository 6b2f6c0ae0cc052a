// Helpers of the files and media e2e tests: real image bytes (sharp) and hostile ones built from them,
// raw-byte requests (fetch, and a chunked body without Content-Length through http.request), and a
// look at what the local storage folder holds for a site.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TestResponse, TestService } from '../../support/testService.ts';

export const solid = (width = 8, height = 6) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } });
export const pngBytes = (width = 8, height = 6) => solid(width, height).png().toBuffer();
export const jpegBytes = (width = 8, height = 6) => solid(width, height).jpeg().toBuffer();

/** EXIF as a phone writes it: the camera, the photographer, and where the photo was taken (the GPS block). */
export const PHOTO_EXIF = {
  IFD0: { Make: 'SvcTestCam', Copyright: 'A photographer' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2980/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4000/100' },
};
/** A JPEG or PNG photo carrying PHOTO_EXIF. */
export const photoBytes = (format: 'jpeg' | 'png', width = 40, height = 30) => solid(width, height)[format]().withExif(PHOTO_EXIF).toBuffer();

/** The image's EXIF as sharp reads it: whether it has any, and whether it has a GPS block (the GPS IFD pointer, tag 0x8825). */
export async function exifOf(bytes: Buffer): Promise<{ exif: boolean; gps: boolean; camera: boolean }> {
  const { exif } = await sharp(bytes).metadata();
  if (!exif) return { exif: false, gps: false, camera: false };
  const littleEndian = exif.includes('II*\0');
  return { exif: true, gps: exif.includes(Buffer.from(littleEndian ? [0x25, 0x88] : [0x88, 0x25])), camera: exif.includes('SvcTestCam') };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG with a tEXt chunk holding a <script>, right after IHDR (8-byte signature + 25-byte IHDR). */
export async function pngWithScriptText(): Promise<Buffer> {
  const png = await pngBytes();
  const text = Buffer.concat([Buffer.from('Comment', 'latin1'), Buffer.from([0]), Buffer.from('<script>alert(document.cookie)</script>', 'latin1')]);
  return Buffer.concat([png.subarray(0, 33), pngChunk('tEXt', text), png.subarray(33)]);
}

export const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120, 0x90)]);
export const MZ = Buffer.concat([Buffer.from('MZ', 'latin1'), Buffer.alloc(62), Buffer.from('This program cannot be run in DOS mode.\r\n', 'latin1')]);

/** A valid PNG with an ELF binary after its IEND chunk. */
export async function pngWithElfAppended(): Promise<Buffer> {
  return Buffer.concat([await pngBytes(), ELF]);
}

const svg = (attributes: string, inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"${attributes}>${inner}</svg>`;
export const SVG_WITH_ONLOAD = svg(' onload="alert(document.domain)"', '<rect width="10" height="10"/>');
export const CLEAN_SVG = svg('', '<rect width="10" height="10" fill="#c33"/><circle cx="50" cy="40" r="20"/>');

/** Bytes as fetch takes them. */
export const asBody = (bytes: Buffer | string | undefined) => (bytes === undefined || typeof bytes === 'string' ? bytes : new Uint8Array(bytes));

export interface RawResponse<T = any> extends TestResponse<T> {
  bytes: Buffer;
}

export interface RawRequest {
  site?: string | null;
  token?: string | null;
  contentType?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  redirect?: RequestRedirect;
}

/** A request with a raw body to `url` (absolute) or `/api/v1<path>`; the answer's bytes, and its JSON when it is JSON. */
export async function sendRaw(service: TestService, method: string, path: string, options: RawRequest = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.site) headers['x-svc-site'] = options.site;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.contentType) headers['content-type'] = options.contentType;
  const url = /^https?:/.test(path) ? path : `${service.url}/api/v1${path}`;
  const response = await fetch(url, { method, headers, body: asBody(options.body), redirect: options.redirect ?? 'manual' });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: unknown = null;
  if ((response.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(bytes.toString('utf8'));
  return { status: response.status, headers: response.headers, body, bytes };
}

export interface ChunkedAnswer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  /** Whether the service closed the connection within a few seconds of its answer (the client stops sending once answered). */
  closedByServer: boolean;
  /** The client's port of the connection the body went through. */
  localPort: number | undefined;
}

/**
 * Sends `total` bytes as a chunked body (no Content-Length) in chunks of `chunkBytes`, and answers the
 * status and JSON body, on a connection of its own kept alive as browsers and fetch keep theirs. The
 * service may answer before the body ends: the client then stops sending and waits up to
 * `closeWaitMs` for the service to close the connection before closing it itself.
 */
export function sendChunked(url: string, headers: Record<string, string>, total: number, chunkBytes = 4096, method = 'POST', closeWaitMs = 0): Promise<ChunkedAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let finished = false;
    const request = httpRequest(url, { method, agent: false, headers: { connection: 'keep-alive', ...headers, 'transfer-encoding': 'chunked' } }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const socket = request.socket;
        const answer = { status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null, headers: response.headers, localPort: socket?.localPort };
        const settle = (closedByServer: boolean) => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          request.destroy();
          resolve({ ...answer, closedByServer });
        };
        const timer = setTimeout(() => settle(false), closeWaitMs);
        if (!socket || socket.destroyed || socket.readyState === 'closed') settle(true);
        else socket.once('close', () => settle(true));
      });
      response.on('error', reject);
    });
    // A refusal may close the connection while chunks are still being written: the answer is what counts.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    let sent = 0;
    const writeMore = () => {
      while (sent < total && !answered) {
        const size = Math.min(chunkBytes, total - sent);
        sent += size;
        if (!request.write(Buffer.alloc(size, 0x61))) {
          request.once('drain', writeMore);
          return;
        }
      }
      if (!answered) request.end();
    };
    writeMore();
  });
}

/** The error envelope's single error, checked for its shape. */
export function onlyError(response: { status: number; body: any }): { code: string; message: string; path: (string | number)[]; extensions: Record<string, any> } {
  expect(response.body, `status ${response.status}`).toMatchObject({ errors: [expect.objectContaining({ code: expect.any(String), message: expect.any(String), path: expect.any(Array) })] });
  expect(response.body.errors).toHaveLength(1);
  return response.body.errors[0];
}

/** Every file of the local storage folder under the site's namespace, relative to it (data and metadata files). */
export async function storedFiles(service: TestService, siteId: string): Promise<string[]> {
  const root = join(service.context.config.dataDir, 'objects', 'sites', siteId);
  try {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name))).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The objects (their metadata files) of the site, by key. */
export async function storedKeys(service: TestService, siteId: string): Promise<string[]> {
  return (await storedFiles(service, siteId)).filter((name) => name.endsWith('~meta.json')).map((name) => name.slice(0, -'~meta.json'.length));
}

/** A `file` part for a multipart form: `bytes` named `filename`, declared as `type`. */
export const filePart = (bytes: Buffer | string, type: string) => new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type });

/** POSTs a multipart form (undici's FormData through fetch, which writes its boundary) to `/api/v1<path>`. */
export async function sendForm(service: TestService, path: string, form: FormData, options: { site?: string | null; token?: string | null } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (options.site) headers['x-svc-site'] = options.site;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${service.url}/api/v1${path}`, { method: 'POST', headers, body: form });
  const bytes = Buffer.from(await response.arrayBuffer());
  const body = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : null;
  return { status: response.status, headers: response.headers, body, bytes };
}
