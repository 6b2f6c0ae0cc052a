// Walks a PNG, JPEG, GIF, WebP or AVIF file block by block (the upload guard, issue #21) to find a
// script or an executable hidden in its text, comment and metadata blocks, or appended after the
// image's end. Pixel data is skipped, not scanned. The file is read in 64 KiB windows; a compressed
// PNG text chunk or a GIF comment is read whole (so at most the file, itself within the policy's maxBytes).
import { open, type FileHandle } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';

export type RasterFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'avif';
export type RasterRefusal = 'embedded_script' | 'embedded_executable' | 'trailing_payload' | 'corrupt_image';
export interface RasterFinding {
  reason: RasterRefusal;
  detail: string;
}
/** What the walk found: a refusal, if any; for WebP whether the (first) image is lossless (VP8L). */
export interface RasterScan {
  finding?: RasterFinding;
  lossless?: boolean;
}

const WINDOW = 64 * 1024;
/** More than the longest marker, so a marker across two windows is still found. */
const OVERLAP = 64;
/** Largest inflated PNG text chunk read (a bigger one is refused as corrupt, not inflated without bound). */
const MAX_INFLATED_TEXT = 8 * 1024 * 1024;

// Markers long enough not to occur by chance in binary metadata (an EXIF thumbnail, an ICC profile).
const SCRIPT_MARKERS = ['<script', '<?php', '<iframe', '<object', '<embed', '<html', '<body', 'javascript:', 'vbscript:', 'onerror=', 'onload=', 'eval(', 'document.cookie'];
// Shorter ones, looked for only in blocks that hold text (PNG tEXt/zTXt/iTXt, JPEG COM, GIF comments).
const TEXT_MARKERS = [...SCRIPT_MARKERS, '<?=', '#!/'];
// After the image's end no image data can hold them by chance: the script half of an image/script polyglot (`GIF89a/*…*/=alert(1)`).
const APPENDED_MARKERS = [...TEXT_MARKERS, 'alert(', 'prompt(', 'confirm(', 'document.', 'window.', 'fetch(', 'xmlhttprequest', 'function(', 'import('];
type Markers = 'image' | 'text' | 'appended';
const MARKERS: Record<Markers, string[]> = { image: SCRIPT_MARKERS, text: TEXT_MARKERS, appended: APPENDED_MARKERS };
// An ELF header (class, data, version), a Mach-O header with an x86/ARM CPU type, a PE's DOS stub.
const EXECUTABLE = /\x7fELF[\x01\x02][\x01\x02]\x01|\xfe\xed\xfa[\xce\xcf][\x00\x01]\x00\x00[\x07\x0c]|[\xce\xcf]\xfa\xed\xfe[\x07\x0c]\x00\x00[\x00\x01]|This program (?:cannot|must) be run/;
/** What appended bytes may not start with (after zero or blank padding): a PE, a script, an archive (a JAR, a ZIP, RAR, 7-Zip). */
const APPENDED_PREFIXES: [string, string][] = [['MZ', 'an executable (MZ)'], ['#!', 'a script (#!)'], ['PK\u0003\u0004', 'an archive (ZIP/JAR)'], ['Rar!', 'an archive (RAR)'], ['7z\u00bc\u00af', 'an archive (7-Zip)']];

interface Payload {
  kind: 'script' | 'executable';
  what: string;
}

function findPayload(latin1: string, markers: Markers): Payload | undefined {
  const executable = EXECUTABLE.exec(latin1);
  if (executable) {
    const what = executable[0].startsWith('\x7fELF') ? 'ELF' : executable[0].startsWith('This') ? 'PE' : 'Mach-O';
    return { kind: 'executable', what: `an executable (${what})` };
  }
  const lower = latin1.toLowerCase();
  const marker = MARKERS[markers].find((candidate) => lower.includes(candidate));
  return marker ? { kind: 'script', what: `a script (${marker})` } : undefined;
}

/** Reads a file at offsets through one cached window. */
class FileWindow {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Up to `length` bytes from `offset` (fewer at the end of the file). */
  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.size);
    if (offset >= end) return Buffer.alloc(0);
    if (offset >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(offset - this.windowStart, end - this.windowStart);
    }
    const buffer = Buffer.alloc(Math.min(Math.max(end - offset, WINDOW), this.size - offset));
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.length, offset);
    this.window = buffer.subarray(0, bytesRead);
    this.windowStart = offset;
    return this.window.subarray(0, Math.min(end - offset, bytesRead));
  }

  /** Scans [start, end) in windows. */
  async scan(start: number, end: number, markers: Markers): Promise<Payload | undefined> {
    for (let at = start; at < end; at += WINDOW - OVERLAP) {
      const bytes = await this.read(at, Math.min(WINDOW, end - at));
      const found = findPayload(bytes.toString('latin1'), markers);
      if (found || at + bytes.length >= end || bytes.length === 0) return found;
    }
    return undefined;
  }
}

const corrupt = (detail: string): RasterScan => ({ finding: { reason: 'corrupt_image', detail } });
const embedded = (payload: Payload, where: string): RasterScan => ({
  finding: { reason: payload.kind === 'script' ? 'embedded_script' : 'embedded_executable', detail: `the ${where} holds ${payload.what}` },
});

/** Bytes after the image's end are allowed (re-encoding drops them) unless they hold a script, an executable or an archive. */
async function checkAppended(file: FileWindow, from: number, end: string): Promise<RasterScan> {
  if (from >= file.size) return {};
  const refuse = (what: string): RasterScan => ({
    finding: { reason: 'trailing_payload', detail: `${file.size - from} bytes after the ${end} hold ${what}` },
  });
  const head = (await file.read(from, 1024)).toString('latin1').replace(/^[\0\s]+/, '');
  const prefix = APPENDED_PREFIXES.find(([start]) => head.startsWith(start));
  if (prefix) return refuse(prefix[1]);
  const found = await file.scan(from, file.size, 'appended');
  return found ? refuse(found.what) : {};
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunks of image data and structure, not scanned; every other chunk (text, EXIF, ICC, private ones) is. */
const PNG_IMAGE_CHUNKS = new Set(['IHDR', 'PLTE', 'IDAT', 'fdAT', 'acTL', 'fcTL', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'sBIT', 'pHYs', 'bKGD', 'hIST']);

function inflateText(data: Buffer): string | undefined {
  try {
    return inflateSync(data, { maxOutputLength: MAX_INFLATED_TEXT }).toString('latin1');
  } catch {
    return undefined;
  }
}

/** tEXt is keyword\0text; zTXt keyword\0method deflated; iTXt keyword\0flag method language\0translated\0text (deflated when flag is 1). */
async function scanPngChunk(file: FileWindow, type: string, start: number, length: number): Promise<Payload | RasterScan | undefined> {
  if (type !== 'zTXt' && type !== 'iTXt') return file.scan(start, start + length, type === 'tEXt' ? 'text' : 'image');
  const data = Buffer.from(await file.read(start, length));
  const keywordEnd = data.indexOf(0);
  if (keywordEnd === -1) return corrupt(`a PNG ${type} chunk without a keyword`);
  let compressed = type === 'zTXt';
  let textStart = keywordEnd + 2;
  if (type === 'iTXt') {
    compressed = data[keywordEnd + 1] === 1;
    const languageEnd = data.indexOf(0, keywordEnd + 3);
    const translatedEnd = languageEnd === -1 ? -1 : data.indexOf(0, languageEnd + 1);
    if (translatedEnd === -1) return corrupt('a malformed PNG iTXt chunk');
    textStart = translatedEnd + 1;
  }
  const head = findPayload(data.subarray(0, textStart).toString('latin1'), 'text');
  if (head || !compressed) return head ?? findPayload(data.subarray(textStart).toString('latin1'), 'text');
  const text = inflateText(data.subarray(textStart));
  if (text === undefined) return corrupt(`a PNG ${type} chunk that does not inflate (or inflates beyond ${MAX_INFLATED_TEXT} bytes)`);
  return findPayload(text, 'text');
}

async function scanPng(file: FileWindow): Promise<RasterScan> {
  if (!(await file.read(0, 8)).equals(PNG_SIGNATURE)) return corrupt('no PNG signature');
  for (let at = 8; ; ) {
    const header = await file.read(at, 8);
    if (header.length < 8) return corrupt('the PNG ends before its IEND chunk');
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    const next = at + 12 + length;
    if (length > 0x7fffffff || !/^[A-Za-z]{4}$/.test(type) || next > file.size) return corrupt(`a malformed PNG chunk at byte ${at}`);
    if (type === 'IEND') return checkAppended(file, next, 'PNG IEND chunk');
    if (!PNG_IMAGE_CHUNKS.has(type)) {
      const found = await scanPngChunk(file, type, at + 8, length);
      if (found && 'kind' in found) return embedded(found, `PNG ${type} chunk`);
      if (found) return found;
    }
    at = next;
  }
}

/** The offset of the marker that ends a scan's entropy-coded data (an 0xFF not followed by 0x00, a restart marker or fill). */
async function endOfEntropyData(file: FileWindow, from: number): Promise<number> {
  for (let at = from; at < file.size; ) {
    const bytes = await file.read(at, WINDOW);
    let index = bytes.indexOf(0xff);
    for (; index !== -1 && index + 1 < bytes.length; index = bytes.indexOf(0xff, index + 1)) {
      const next = bytes[index + 1]!;
      if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) return at + index;
    }
    if (index === -1) at += bytes.length;
    else if (at + bytes.length >= file.size) return -1;
    else at += index;
  }
  return -1;
}

async function scanJpeg(file: FileWindow): Promise<RasterScan> {
  const start = await file.read(0, 2);
  if (start[0] !== 0xff || start[1] !== 0xd8) return corrupt('no JPEG start-of-image marker');
  for (let at = 2; ; ) {
    const marker = await file.read(at, 4);
    if (marker.length < 2 || marker[0] !== 0xff) return corrupt(`no JPEG marker at byte ${at}`);
    const code = marker[1]!;
    if (code === 0xd9) return checkAppended(file, at + 2, 'JPEG EOI marker');
    if (code === 0xff || code === 0x01 || (code >= 0xd0 && code <= 0xd7)) {
      at += code === 0xff ? 1 : 2;
      continue;
    }
    const length = marker.length === 4 ? marker.readUInt16BE(2) : 0;
    const end = at + 2 + length;
    if (length < 2 || end > file.size) return corrupt(`a malformed JPEG segment at byte ${at}`);
    if (code === 0xfe || (code >= 0xe0 && code <= 0xef)) {
      const found = await file.scan(at + 4, end, code === 0xfe ? 'text' : 'image');
      if (found) return embedded(found, code === 0xfe ? 'JPEG COM segment' : `JPEG APP${code - 0xe0} segment`);
    }
    at = code === 0xda ? await endOfEntropyData(file, end) : end;
    if (at === -1) return corrupt('the JPEG ends before its EOI marker');
  }
}

/** GIF data sub-blocks from `at`: where they end, and their bytes when `collect` (comments and application data). */
async function gifSubBlocks(file: FileWindow, at: number, collect: boolean): Promise<{ end: number; data: Buffer } | undefined> {
  const parts: Buffer[] = [];
  for (;;) {
    const size = (await file.read(at, 1))[0];
    if (size === undefined) return undefined;
    if (size === 0) return { end: at + 1, data: Buffer.concat(parts) };
    if (at + 1 + size > file.size) return undefined;
    if (collect) parts.push(Buffer.from(await file.read(at + 1, size)));
    at += 1 + size;
  }
}

async function scanGif(file: FileWindow): Promise<RasterScan> {
  const header = await file.read(0, 13);
  if (header.length < 13 || !/^GIF8[79]a$/.test(header.toString('latin1', 0, 6))) return corrupt('no GIF header');
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  for (let at = 13 + colourTable(header[10]!); ; ) {
    const block = await file.read(at, 10);
    if (block[0] === 0x3b) return checkAppended(file, at + 1, 'GIF trailer');
    if (block[0] === 0x21 && block.length >= 2) {
      const label = block[1]!;
      // 0xFE comment, 0x01 plain text, 0xFF application (XMP lives there); 0xF9 is frame timing.
      const blocks = await gifSubBlocks(file, at + 2, label !== 0xf9);
      if (!blocks) return corrupt(`a truncated GIF extension at byte ${at}`);
      const found = findPayload(blocks.data.toString('latin1'), label === 0xfe || label === 0x01 ? 'text' : 'image');
      if (found) return embedded(found, label === 0xfe ? 'GIF comment extension' : `GIF extension 0x${label.toString(16)}`);
      at = blocks.end;
    } else if (block[0] === 0x2c && block.length === 10) {
      const blocks = await gifSubBlocks(file, at + 10 + colourTable(block[9]!) + 1, false);
      if (!blocks) return corrupt(`a truncated GIF image at byte ${at}`);
      at = blocks.end;
    } else {
      return corrupt(block.length === 0 ? 'the GIF ends before its trailer' : `an unknown GIF block at byte ${at}`);
    }
  }
}

/** Chunks of image data and structure; metadata (EXIF, XMP, ICCP) and unknown chunks are scanned. */
const WEBP_IMAGE_CHUNKS = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF']);

async function scanWebp(file: FileWindow): Promise<RasterScan> {
  const header = await file.read(0, 12);
  if (header.length < 12 || header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WEBP') return corrupt('no WebP RIFF header');
  const riffEnd = 8 + header.readUInt32LE(4);
  if (riffEnd > file.size) return corrupt('the WebP is shorter than its RIFF header says');
  let lossless: boolean | undefined;
  for (let at = 12; at + 8 <= riffEnd; ) {
    const chunk = await file.read(at, 28);
    const fourcc = chunk.toString('latin1', 0, 4);
    const end = at + 8 + chunk.readUInt32LE(4);
    if (end > riffEnd) return corrupt(`a malformed WebP chunk at byte ${at}`);
    // An animation frame (ANMF) holds a 16-byte frame header, then its VP8/VP8L chunk.
    const coded = fourcc === 'ANMF' ? chunk.toString('latin1', 24, 28) : fourcc;
    if (lossless === undefined && (coded === 'VP8L' || coded === 'VP8 ')) lossless = coded === 'VP8L';
    if (!WEBP_IMAGE_CHUNKS.has(fourcc)) {
      const found = await file.scan(at + 8, end, 'image');
      if (found) return embedded(found, `WebP ${fourcc.trim()} chunk`);
    }
    at = end + (end & 1);
  }
  const appended = await checkAppended(file, riffEnd, 'WebP RIFF end');
  return lossless === undefined ? appended : { ...appended, lossless };
}

/** AVIF (ISO BMFF): the top-level boxes; every box but mdat (the coded image) is scanned. Bytes no box covers are appended bytes. */
async function scanAvif(file: FileWindow): Promise<RasterScan> {
  let at = 0;
  while (at < file.size) {
    const header = await file.read(at, 16);
    if (header.length < 8) break;
    const type = header.toString('latin1', 4, 8);
    const large = header.readUInt32BE(0) === 1;
    if (large && header.length < 16) break;
    const headerLength = large ? 16 : 8;
    const size = large ? Number(header.readBigUInt64BE(8)) : header.readUInt32BE(0) || file.size - at;
    if (!/^[\x20-\x7e]{4}$/.test(type) || size < headerLength || at + size > file.size) break;
    if (at === 0 && type !== 'ftyp') return corrupt('an AVIF file that does not start with an ftyp box');
    if (type !== 'mdat') {
      const found = await file.scan(at + headerLength, at + size, 'image');
      if (found) return embedded(found, `AVIF ${type} box`);
    }
    at += size;
  }
  if (at === 0) return corrupt('no AVIF ftyp box');
  return checkAppended(file, at, 'last AVIF box');
}

const SCANNERS: Record<RasterFormat, (file: FileWindow) => Promise<RasterScan>> = {
  png: scanPng,
  jpeg: scanJpeg,
  gif: scanGif,
  webp: scanWebp,
  avif: scanAvif,
};

/** Walks the file at `path` as `format`; the finding is what the guard refuses it for. */
export async function scanRaster(path: string, format: RasterFormat): Promise<RasterScan> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return await SCANNERS[format](new FileWindow(handle, size));
  } finally {
    await handle.close();
  }
}
