// The upload guard (spec "Files and assets", issues #21 and #27) that every upload surface calls: the
// body is received to a temp file counting its true bytes, then the file is checked against the site's
// upload policy, its name and its declared type, which must be one the guard can verify (VERIFIED_TYPES)
// unless the policy names it exactly; then sniffed and scanned (executables, SVG active content, payloads
// in raster images, markup in plain text). The guard refuses what is dangerous and never rewrites what it
// accepts: the original is kept byte for byte, unless the site's policy opts in to `stripMetadata`, which
// re-encodes raster images in place without their metadata. Refusals: 413 PAYLOAD_TOO_LARGE; 415 UNSUPPORTED_MEDIA_TYPE (type_missing,
// type_not_allowed, extension_not_allowed, type_not_verifiable); 422 UPLOAD_REJECTED (executable,
// extension_mismatch, type_mismatch, svg_active_content, embedded_script, embedded_executable,
// trailing_payload, corrupt_image), each with `extensions.reason`.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileTypeFromFile } from 'file-type';
import { AppError, type ErrorCode } from '../../../domain/shared/appError.ts';
import { scanRaster, type RasterFormat } from './rasterScan.ts';
import { loadSharp, type SharpOpen } from './sharpLoader.ts';
import { decodeSvgText, scanSvg } from './svgScan.ts';

/** What a site takes; an empty list does not restrict. */
export interface UploadPolicy {
  maxBytes: number;
  allowedMimeTypes: string[];
  allowedExtensions: string[];
}

export interface InspectedUpload {
  mimeType: string;
  extension: string;
  bytes: number;
  width?: number;
  height?: number;
  /** The file was re-encoded in place (the policy's `stripMetadata`): store it again even when `bytes` did not change. */
  reencoded: boolean;
}

/**
 * How the guard verifies a type: `raster` decoded and scanned (rasterScan.ts), `svg` scanned
 * (svgScan.ts), `decoded` opened by sharp, `text` checked for markup a browser could sniff, `sniffed`
 * recognised by its bytes (file-type) and kept as an opaque attachment (PDF, audio, video, archives).
 */
type Verification = 'raster' | 'svg' | 'decoded' | 'text' | 'sniffed';

/** A type the guard can verify: its extensions, what file-type may sniff for it (null: nothing), and how it is checked. */
interface VerifiedType {
  extensions: string[];
  sniffed: (string | null)[];
  verification: Verification;
  raster?: RasterFormat;
}

const raster = (extensions: string[], sniffed: string[], format: RasterFormat): VerifiedType => ({ extensions, sniffed, verification: 'raster', raster: format });
const sniffedAs = (extensions: string[], sniffed: string[]): VerifiedType => ({ extensions, sniffed, verification: 'sniffed' });
const text = (extensions: string[]): VerifiedType => ({ extensions, sniffed: [null], verification: 'text' });

/**
 * The allowlist (issue #27): only these are taken by default. Any other type (HTML, XHTML, XML,
 * JSON, scripts, octet-stream, images sharp cannot decode) is refused unless the site's policy names
 * it exactly, and is then only ever served as an attachment.
 */
const VERIFIED_TYPES = new Map<string, VerifiedType>(Object.entries({
  'image/jpeg': raster(['jpg', 'jpeg', 'jpe', 'jfif'], ['image/jpeg'], 'jpeg'),
  'image/png': raster(['png'], ['image/png', 'image/apng'], 'png'),
  'image/apng': raster(['apng', 'png'], ['image/apng'], 'png'),
  'image/gif': raster(['gif'], ['image/gif'], 'gif'),
  'image/webp': raster(['webp'], ['image/webp'], 'webp'),
  'image/avif': raster(['avif'], ['image/avif'], 'avif'),
  'image/svg+xml': { extensions: ['svg'], sniffed: [null, 'application/xml'], verification: 'svg' },
  'image/tiff': { extensions: ['tif', 'tiff'], sniffed: ['image/tiff'], verification: 'decoded' },
  // Photos sharp cannot decode here (HEVC): recognised by their ftyp brand, downloaded, never shown inline.
  'image/heic': sniffedAs(['heic'], ['image/heic', 'image/heic-sequence', 'image/heif']),
  'image/heif': sniffedAs(['heif'], ['image/heif', 'image/heif-sequence', 'image/heic']),
  'application/pdf': sniffedAs(['pdf'], ['application/pdf']),
  'text/plain': text(['txt', 'text', 'log']),
  'text/markdown': text(['md', 'markdown']),
  'text/csv': text(['csv']),
  'video/mp4': sniffedAs(['mp4', 'm4v'], ['video/mp4', 'video/x-m4v']),
  'video/webm': sniffedAs(['webm'], ['video/webm']),
  'video/quicktime': sniffedAs(['mov'], ['video/quicktime']),
  'video/ogg': sniffedAs(['ogv'], ['video/ogg']),
  'audio/mpeg': sniffedAs(['mp3'], ['audio/mpeg']),
  'audio/wav': sniffedAs(['wav'], ['audio/wav']),
  'audio/ogg': sniffedAs(['ogg', 'oga', 'opus'], ['audio/ogg', 'audio/ogg; codecs=opus']),
  'audio/mp4': sniffedAs(['m4a'], ['audio/x-m4a', 'audio/mp4']),
  'audio/aac': sniffedAs(['aac'], ['audio/aac']),
  'audio/flac': sniffedAs(['flac'], ['audio/flac']),
  'application/zip': sniffedAs(['zip'], ['application/zip']),
  'application/gzip': sniffedAs(['gz', 'tgz'], ['application/gzip']),
  'application/x-tar': sniffedAs(['tar'], ['application/x-tar']),
  'application/x-7z-compressed': sniffedAs(['7z'], ['application/x-7z-compressed']),
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': sniffedAs(['docx'], ['application/vnd.openxmlformats-officedocument.wordprocessingml.document']),
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': sniffedAs(['xlsx'], ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']),
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': sniffedAs(['pptx'], ['application/vnd.openxmlformats-officedocument.presentationml.presentation']),
} satisfies Record<string, VerifiedType>));
/** Extensions a type the guard does not verify may not borrow: a `.png` is never HTML, whatever the policy lists. */
const VERIFIED_EXTENSIONS = new Set([...VERIFIED_TYPES.values()].flatMap((type) => type.extensions));
/** Types served inline (as images, under an image CSP): the ones the guard decoded or scanned. Everything else downloads. */
const INLINE_IMAGE_TYPES = new Set([...VERIFIED_TYPES].filter(([, type]) => ['raster', 'svg', 'decoded'].includes(type.verification)).map(([name]) => name));
const ALIASES = new Map(Object.entries({
  'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-png': 'image/png', 'image/vnd.microsoft.icon': 'image/x-icon',
  'text/xml': 'application/xml', 'audio/mp3': 'audio/mpeg', 'audio/x-wav': 'audio/wav', 'audio/wave': 'audio/wav', 'audio/vnd.wave': 'audio/wav',
  'audio/x-m4a': 'audio/mp4', 'audio/x-flac': 'audio/flac', 'application/x-gzip': 'application/gzip',
  'application/x-zip-compressed': 'application/zip',
}));
const EXECUTABLE_SNIFFS = new Set(['elf', 'macho', 'exe']);
/**
 * Plain text a browser could take for markup: text that opens with a tag, a comment, a doctype or an
 * XML declaration (what the WHATWG sniffing rules and older browsers look at first), or whose first
 * bytes (the sniffed "resource header") hold an element that runs or loads something, or an event handler.
 */
const MARKUP_OPENING = /^(?:\uFEFF)?[\t\n\f\r ]*(?:<[a-z!?/]|%PDF-|%!PS-Adobe-)/i;
const ACTIVE_MARKUP = /<(?:script|html|head|body|i?frame|frameset|svg|math|object|embed|applet|meta|base|link|style|form|!doctype|\?xml)\b|<[a-z][^>]*[\s/"']on[a-z]+\s*=/i;
const RESOURCE_HEADER_BYTES = 1445;
/** How long one re-encode may take before the upload is refused. */
const REENCODE_TIMEOUT_SECONDS = 60;
const FLUSH_BYTES = 64 * 1024;

/** `image/JPG; charset=x` → `image/jpeg`. */
export function canonicalMimeType(contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return ALIASES.get(type) ?? type;
}

/** The extension of a file name, lowercased, without its dot ('' when it has none). */
export function extensionOf(filename: string): string {
  const base = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

const refuse = (code: ErrorCode, reason: string, message: string, extensions: Record<string, unknown> = {}) =>
  new AppError(code, message, { extensions: { reason, ...extensions } });
const rejected = (reason: string, message: string, extensions: Record<string, unknown> = {}) => refuse('UPLOAD_REJECTED', reason, message, extensions);
const tooLarge = (maxBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The upload is larger than the ${maxBytes} bytes this site takes`, { extensions: { maxBytes } });

async function writeAll(file: FileHandle, bytes: Buffer): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) offset += (await file.write(bytes, offset, bytes.length - offset)).bytesWritten;
}

/**
 * Streams `body` to a new temp file under `dir`, counting bytes (a chunked body without a Content-Length
 * is counted the same); over maxBytes → AppError PAYLOAD_TOO_LARGE (the partial file removed). The body
 * is left unread past the cap, not destroyed, so the caller can still answer (and close the connection).
 */
export async function receiveToTempFile(body: NodeJS.ReadableStream, options: { dir: string; maxBytes: number }): Promise<{ path: string; bytes: number }> {
  await mkdir(options.dir, { recursive: true });
  const path = join(options.dir, `upload-${randomUUID()}.part`);
  const file = await open(path, 'wx', 0o600);
  let bytes = 0;
  try {
    const source: AsyncIterable<unknown> = body instanceof Readable ? body.iterator({ destroyOnReturn: false }) : body;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const chunk of source) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      bytes += buffer.length;
      if (bytes > options.maxBytes) throw tooLarge(options.maxBytes);
      pending.push(buffer);
      pendingBytes += buffer.length;
      if (pendingBytes >= FLUSH_BYTES) {
        await writeAll(file, Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pendingBytes > 0) await writeAll(file, Buffer.concat(pending));
    await file.close();
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
  return { path, bytes };
}

/** An exact entry of the policy's allowedMimeTypes (a wildcard does not name a type the guard cannot verify). */
const policyNames = (policy: UploadPolicy, mimeType: string) => policy.allowedMimeTypes.some((entry) => canonicalMimeType(entry) === mimeType);

/**
 * The type checks: executables first (whatever the name), then the allowlists, then whether the type
 * is one the guard verifies (or the policy names exactly), then name and bytes against the declared type.
 */
async function checkType(path: string, declared: { filename: string; contentType: string }, policy: UploadPolicy): Promise<{ mimeType: string; extension: string; verified?: VerifiedType }> {
  const head = await readHead(path, 16);
  const sniffed = await fileTypeFromFile(path);
  const executable = executableMagic(head) ?? (sniffed && EXECUTABLE_SNIFFS.has(sniffed.ext) ? sniffed.mime : undefined);
  if (executable) throw rejected('executable', `The file is an executable (${executable}), which is never accepted`, { detected: executable });

  const mimeType = canonicalMimeType(declared.contentType);
  const extension = extensionOf(declared.filename);
  if (!mimeType) throw refuse('UNSUPPORTED_MEDIA_TYPE', 'type_missing', 'The upload declares no content type');
  const allowedTypes = policy.allowedMimeTypes.map((entry) => canonicalMimeType(entry));
  const typeAllowed = allowedTypes.some((entry) => entry === mimeType || entry === '*/*' || (entry.endsWith('/*') && mimeType.startsWith(entry.slice(0, -1))));
  if (allowedTypes.length > 0 && !typeAllowed) throw refuse('UNSUPPORTED_MEDIA_TYPE', 'type_not_allowed', `This site does not take ${mimeType} uploads`, { mimeType });
  const allowedExtensions = policy.allowedExtensions.map((entry) => entry.trim().toLowerCase().replace(/^\./, ''));
  if (allowedExtensions.length > 0 && !allowedExtensions.includes(extension)) {
    throw refuse('UNSUPPORTED_MEDIA_TYPE', 'extension_not_allowed', extension ? `This site does not take .${extension} files` : 'This site does not take files without an extension', { extension });
  }

  const verified = VERIFIED_TYPES.get(mimeType);
  if (!verified && !policyNames(policy, mimeType)) {
    throw refuse(
      'UNSUPPORTED_MEDIA_TYPE',
      'type_not_verifiable',
      `${mimeType} is not a type the upload guard can verify; a site administrator can name it in the upload policy to take it as a download`,
      { mimeType },
    );
  }
  if (verified ? !verified.extensions.includes(extension) : VERIFIED_EXTENSIONS.has(extension)) {
    throw rejected('extension_mismatch', `The name "${declared.filename}" does not fit the declared type ${mimeType}`, { mimeType, extension });
  }
  const detected = sniffed?.mime;
  // A type the policy names: nothing sniffed, or what it says (an XML vocabulary sniffs as XML).
  const fits = verified
    ? verified.sniffed.includes(detected ?? null)
    : detected === undefined || detected === mimeType || (detected === 'application/xml' && mimeType.endsWith('+xml'));
  if (!fits) {
    throw rejected('type_mismatch', detected ? `The bytes are ${detected}, not the declared ${mimeType}` : `The bytes are not ${mimeType}`, { mimeType, detected: detected ?? null });
  }
  return { mimeType, extension, ...(verified ? { verified } : {}) };
}

/** Whether stored bytes of this type are served inline: images the guard decoded or scanned. Everything else is a download. */
export function servedInline(mimeType: string): boolean {
  return INLINE_IMAGE_TYPES.has(canonicalMimeType(mimeType));
}

async function readHead(path: string, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** ELF, thin Mach-O (32/64-bit, either byte order) and MZ (DOS/PE) headers; file-type adds fat Mach-O binaries. */
function executableMagic(head: Buffer): string | undefined {
  const magic = head.length >= 4 ? head.readUInt32BE(0) : 0;
  if (magic === 0x7f454c46) return 'ELF';
  if ([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(magic)) return 'Mach-O';
  if (head.length >= 2 && head[0] === 0x4d && head[1] === 0x5a) return 'PE/MZ';
  return undefined;
}

/** SVG: read whole (at most the policy's maxBytes) and scanned; the bytes must be an <svg> document without active content. */
async function checkSvg(path: string): Promise<{ width?: number; height?: number }> {
  const scan = scanSvg(decodeSvgText(await readFile(path)));
  if (scan.kind === 'clean') return { ...(scan.width ? { width: scan.width } : {}), ...(scan.height ? { height: scan.height } : {}) };
  if (scan.kind === 'not_svg') throw rejected('type_mismatch', `The bytes are not an SVG document: ${scan.detail}`, { mimeType: 'image/svg+xml', detail: scan.detail });
  if (scan.kind === 'malformed') throw rejected('corrupt_image', `The SVG is not well formed: ${scan.detail}`, { detail: scan.detail });
  throw rejected('svg_active_content', `The SVG has active content: ${scan.detail}`, { detail: scan.detail });
}

/** A declared plain-text type whose first bytes a browser could take for markup (HTML, SVG, XML, PDF). */
async function checkText(path: string, mimeType: string): Promise<void> {
  const header = decodeSvgText(await readHead(path, RESOURCE_HEADER_BYTES));
  if (MARKUP_OPENING.test(header) || ACTIVE_MARKUP.test(header)) {
    throw rejected('type_mismatch', `The bytes are markup a browser could render, not ${mimeType}`, { mimeType, detected: 'markup' });
  }
}

/** A type sharp decodes without a scanner of its own (TIFF): it must open as that format, and its pixels decode. */
async function checkDecodable(path: string, mimeType: string): Promise<{ width?: number; height?: number }> {
  const sharp = await loadSharp();
  let format: string | undefined;
  try {
    format = (await sharp(path).metadata()).format;
    await sharp(path).stats();
  } catch (error) {
    throw rejected('corrupt_image', `The image cannot be decoded: ${(error as Error).message}`, { detail: (error as Error).message });
  }
  if (`image/${format}` !== mimeType) throw rejected('type_mismatch', `The bytes decode as ${format ?? 'nothing'}, not ${mimeType}`, { mimeType, detected: format ?? null });
  return rasterDimensions(sharp, path);
}

/** Re-encoded in its own format: metadata, text chunks and appended bytes are not carried over; orientation is applied, animation kept. */
async function reencode(sharp: SharpOpen, path: string, format: RasterFormat, lossless: boolean | undefined): Promise<{ bytes: number; width: number; height: number }> {
  const animated = format === 'gif' || format === 'webp';
  const image = sharp(path, { animated }).timeout({ seconds: REENCODE_TIMEOUT_SECONDS });
  const { pages = 1, isPalette } = await image.metadata();
  if (pages === 1) image.autoOrient();
  if (format === 'jpeg') image.jpeg({ quality: 90 });
  else if (format === 'png') image.png({ palette: isPalette }); // a palette image (256 colours at most) stays one, pixel for pixel
  else if (format === 'webp') image.webp(lossless ? { lossless: true } : { quality: 90 });
  else if (format === 'gif') image.gif();
  else image.avif({ quality: 70 });
  const output = `${path}.reencoded`;
  try {
    const info = await image.toFile(output);
    await rename(output, path);
    return { bytes: info.size, width: info.width, height: info.pageHeight ?? info.height };
  } finally {
    await rm(output, { force: true });
  }
}

async function rasterDimensions(sharp: SharpOpen, path: string): Promise<{ width?: number; height?: number }> {
  const metadata = await sharp(path).metadata();
  // Read without `animated`, an animation's metadata describes its first frame.
  const width = metadata.autoOrient?.width ?? metadata.width;
  const height = metadata.autoOrient?.height ?? metadata.pageHeight ?? metadata.height;
  return { ...(width ? { width } : {}), ...(height ? { height } : {}) };
}

async function checkRaster(path: string, format: RasterFormat, stripMetadata: boolean): Promise<{ bytes?: number; width?: number; height?: number; reencoded?: boolean }> {
  const scan = await scanRaster(path, format);
  if (scan.finding) throw rejected(scan.finding.reason, `The image was refused: ${scan.finding.detail}`, { detail: scan.finding.detail });
  const sharp = await loadSharp(); // outside the try: a library that does not load is no corrupt image
  try {
    return stripMetadata ? { ...(await reencode(sharp, path, format, scan.lossless)), reencoded: true } : await rasterDimensions(sharp, path);
  } catch (error) {
    throw rejected('corrupt_image', `The image cannot be decoded: ${(error as Error).message}`, { detail: (error as Error).message });
  }
}

/**
 * Checks the received file against the policy and its name/declared type; returns what it is (re-encoded
 * in place only with `stripMetadata`), or throws the refusals above. On any refusal the file is removed.
 */
export async function inspectUpload(
  file: { path: string; bytes: number },
  declared: { filename: string; contentType: string },
  options: { policy: UploadPolicy; stripMetadata: boolean },
): Promise<InspectedUpload> {
  try {
    const { size } = await stat(file.path);
    if (size > options.policy.maxBytes) throw tooLarge(options.policy.maxBytes);
    const { mimeType, extension, verified } = await checkType(file.path, declared, options.policy);
    let found: { bytes?: number; width?: number; height?: number; reencoded?: boolean } = {};
    // A type the policy names without the guard verifying it is kept as sent: it is only ever served as an attachment.
    if (verified?.verification === 'svg') found = await checkSvg(file.path);
    else if (verified?.raster) found = await checkRaster(file.path, verified.raster, options.stripMetadata);
    else if (verified?.verification === 'decoded') found = await checkDecodable(file.path, mimeType);
    else if (verified?.verification === 'text') await checkText(file.path, mimeType);
    const { bytes = size, width, height, reencoded = false } = found;
    return { mimeType, extension, bytes, ...(width ? { width } : {}), ...(height ? { height } : {}), reencoded };
  } catch (error) {
    await rm(file.path, { force: true });
    throw error;
  }
}
