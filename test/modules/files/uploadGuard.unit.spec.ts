// The upload guard on real bytes: images made with sharp, then taken apart and given hidden payloads.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { inspectUpload, receiveToTempFile, servedInline, type UploadPolicy } from '../../../src/modules/files/uploadGuard.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-upload-guard-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const OPEN: UploadPolicy = { maxBytes: 10 * 1024 * 1024, allowedMimeTypes: [], allowedExtensions: [] };
let counter = 0;

/** Writes `bytes` as a received upload and inspects it. */
async function inspect(bytes: Buffer | string, filename: string, contentType: string, options: { policy?: UploadPolicy; stripMetadata?: boolean } = {}) {
  const path = join(dir, `received-${(counter += 1)}`);
  await writeFile(path, bytes);
  const result = await inspectUpload({ path, bytes: Buffer.byteLength(bytes) }, { filename, contentType }, { policy: options.policy ?? OPEN, stripMetadata: options.stripMetadata ?? false });
  return { ...result, path };
}

/** The AppError an inspection refuses with; the refused file must be gone. */
async function refusal(bytes: Buffer | string, filename: string, contentType: string, options: { policy?: UploadPolicy; stripMetadata?: boolean } = {}): Promise<AppError> {
  const before = new Set(await readdir(dir));
  const error = await inspect(bytes, filename, contentType, options).then(
    () => {
      throw new Error('expected the upload to be refused');
    },
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((await readdir(dir)).filter((name) => !before.has(name))).toEqual([]);
  return error as AppError;
}

const solid = () => sharp({ create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 30, b: 60 } } });
const pngBytes = () => solid().png().toBuffer();
const jpegBytes = () => solid().jpeg().toBuffer();
const gifBytes = () => solid().gif().toBuffer();

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
/** A chunk put right after IHDR (8-byte signature + 25-byte IHDR chunk). */
const withPngChunk = (png: Buffer, chunk: Buffer) => Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
const textChunk = (keyword: string, text: string) => pngChunk('tEXt', Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]));

/** A JPEG COM segment right after SOI. */
function withJpegComment(jpeg: Buffer, text: string): Buffer {
  const header = Buffer.from([0xff, 0xfe, 0, 0]);
  header.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, Buffer.from(text, 'latin1'), jpeg.subarray(2)]);
}

const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(56)]);
const MACH_O = Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 0x07, 0x00, 0x00, 0x01]), Buffer.alloc(56)]);
const MZ = Buffer.concat([Buffer.from('MZ', 'latin1'), Buffer.alloc(62), Buffer.from('This program cannot be run in DOS mode.\r\n', 'latin1')]);

const reasonOf = (error: AppError) => error.extensions.reason;

describe('receiveToTempFile', () => {
  const chunked = (total: number, size = 7) =>
    Readable.from(
      (function* () {
        for (let sent = 0; sent < total; sent += size) yield Buffer.alloc(Math.min(size, total - sent), 0x61);
      })(),
    );

  it('refuses a chunked body one byte over the cap with 413 PAYLOAD_TOO_LARGE and leaves no file behind', async () => {
    const receiveDir = join(dir, 'over');
    const body = chunked(10_001);
    const error = await receiveToTempFile(body, { dir: receiveDir, maxBytes: 10_000 }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as AppError).status).toBe(413);
    expect(await readdir(receiveDir)).toEqual([]);
    expect(body.destroyed).toBe(false);
  });

  it('takes a chunked body of exactly the cap, byte for byte', async () => {
    const received = await receiveToTempFile(chunked(10_000), { dir: join(dir, 'exact'), maxBytes: 10_000 });
    expect(received.bytes).toBe(10_000);
    expect(await readFile(received.path)).toEqual(Buffer.alloc(10_000, 0x61));
  });

  it('removes the partial file when the body fails', async () => {
    const receiveDir = join(dir, 'aborted');
    const body = Readable.from(
      (function* () {
        yield Buffer.from('some bytes');
        throw new Error('client went away');
      })(),
    );
    await expect(receiveToTempFile(body, { dir: receiveDir, maxBytes: 1000 })).rejects.toThrow('client went away');
    expect(await readdir(receiveDir)).toEqual([]);
  });
});

describe('inspectUpload: types and names', () => {
  it('accepts a PNG with its size and dimensions', async () => {
    const png = await pngBytes();
    expect(await inspect(png, 'photo.png', 'image/png')).toMatchObject({ mimeType: 'image/png', extension: 'png', bytes: png.length, width: 8, height: 6 });
  });

  it('refuses a declared image/png whose bytes are a JPEG', async () => {
    const error = await refusal(await jpegBytes(), 'photo.png', 'image/png');
    expect([error.code, error.status, reasonOf(error), error.extensions.detected]).toEqual(['UPLOAD_REJECTED', 422, 'type_mismatch', 'image/jpeg']);
  });

  it('refuses a name whose extension does not fit the declared type', async () => {
    const error = await refusal(await pngBytes(), 'photo.jpg', 'image/png');
    expect([error.code, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 'extension_mismatch']);
  });

  it('refuses a type that is not on the allowlist with 415', async () => {
    const policy = { ...OPEN, allowedMimeTypes: ['image/png', 'image/jpeg'] };
    const error = await refusal(await gifBytes(), 'anim.gif', 'image/gif', { policy });
    expect([error.code, error.status, reasonOf(error)]).toEqual(['UNSUPPORTED_MEDIA_TYPE', 415, 'type_not_allowed']);
    expect(await inspect(await jpegBytes(), 'a.JPG', 'image/jpg', { policy })).toMatchObject({ mimeType: 'image/jpeg', extension: 'jpg' });
  });

  it('refuses an extension that is not on the allowlist with 415', async () => {
    const error = await refusal(await jpegBytes(), 'a.jpeg', 'image/jpeg', { policy: { ...OPEN, allowedExtensions: ['jpg', '.png'] } });
    expect([error.code, reasonOf(error)]).toEqual(['UNSUPPORTED_MEDIA_TYPE', 'extension_not_allowed']);
  });

  it('refuses the file larger than the policy even when it was received elsewhere', async () => {
    const error = await refusal(await pngBytes(), 'a.png', 'image/png', { policy: { ...OPEN, maxBytes: 10 } });
    expect([error.code, error.status]).toEqual(['PAYLOAD_TOO_LARGE', 413]);
  });

  it('refuses SVG markup declared as text', async () => {
    const error = await refusal('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', 'notes.txt', 'text/plain');
    expect(reasonOf(error)).toBe('type_mismatch');
    expect(await inspect('just some notes\n', 'notes.txt', 'text/plain; charset=utf-8')).toMatchObject({ mimeType: 'text/plain', extension: 'txt' });
  });
});

describe('inspectUpload: executables', () => {
  it.each([
    ['an ELF binary', ELF],
    ['a Mach-O binary', MACH_O],
    ['a PE/MZ binary', MZ],
  ])('refuses %s named .png', async (_name, bytes) => {
    const error = await refusal(bytes, 'cat.png', 'image/png');
    expect([error.code, error.status, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 422, 'executable']);
  });

  it('refuses an executable under a type that is not checked', async () => {
    expect(reasonOf(await refusal(ELF, 'data.bin', 'application/octet-stream'))).toBe('executable');
  });
});

describe('inspectUpload: SVG', () => {
  const svg = (inner: string, rootAttributes = '') =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80"${rootAttributes}>${inner}</svg>`;

  it('accepts a clean SVG with fragments, inline raster data and styles', async () => {
    const clean = svg(
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient><circle id="c" r="4"/></defs>' +
        '<style>.a { fill: url(#g); stroke: #000 }</style><use href="#c"/><use xlink:href="#c" x="10"/>' +
        '<image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/><rect class="a" style="fill:url(\'#g\')" width="10" height="10"/>',
    );
    expect(await inspect(clean, 'logo.svg', 'image/svg+xml')).toMatchObject({ mimeType: 'image/svg+xml', extension: 'svg', width: 120, height: 80 });
  });

  it.each([
    ['an onload handler', svg('', ' onload="alert(1)"')],
    ['a <script> element', svg('<script>alert(1)</script>')],
    ['a javascript: href', svg('<a href="javascript:alert(1)"><text>x</text></a>')],
    ['an entity-encoded javascript: href', svg('<a xlink:href="&#106;ava&#x73;cript&colon;alert(1)"><text>x</text></a>')],
    ['a foreignObject', svg('<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>')],
    ['an external <image href>', svg('<image href="http://evil.example/a.png" width="1" height="1"/>')],
    ['a <use> of an external file', svg('<use xlink:href="sprites.svg#icon"/>')],
    ['an external url() in <style>', svg('<style>rect { fill: url(https://evil.example/x.svg#p) }</style>')],
    ['an @import in <style>', svg('<style><![CDATA[@import "https://evil.example/x.css";]]></style>')],
    ['an <set> of href', svg('<a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a>')],
    ['an entity declaration', `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>`],
    ['markup hidden in a comment', svg('<!--><img src=x onerror=alert(1)>-->')],
  ])('refuses an SVG with %s', async (_name, text) => {
    const error = await refusal(text, 'logo.svg', 'image/svg+xml');
    expect([error.code, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 'svg_active_content']);
    expect(error.extensions.detail).toEqual(expect.any(String));
  });

  it('refuses a declared SVG that is not one', async () => {
    expect(reasonOf(await refusal('<html><body>hi</body></html>', 'logo.svg', 'image/svg+xml'))).toBe('type_mismatch');
    expect(reasonOf(await refusal(await pngBytes(), 'logo.svg', 'image/svg+xml'))).toBe('type_mismatch');
  });
});

describe('inspectUpload: raster payloads', () => {
  it('refuses a PNG whose tEXt chunk holds a script', async () => {
    const error = await refusal(withPngChunk(await pngBytes(), textChunk('Comment', '<script>alert(1)</script>')), 'a.png', 'image/png');
    expect([error.code, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 'embedded_script']);
    expect(error.extensions.detail).toContain('tEXt');
  });

  it('refuses a PNG whose compressed zTXt chunk holds PHP', async () => {
    const { deflateSync } = await import('node:zlib');
    const data = Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), deflateSync(Buffer.from('<?php system($_GET["c"]); ?>'))]);
    expect(reasonOf(await refusal(withPngChunk(await pngBytes(), pngChunk('zTXt', data)), 'a.png', 'image/png'))).toBe('embedded_script');
  });

  it('refuses a PNG with an ELF appended after IEND', async () => {
    const error = await refusal(Buffer.concat([await pngBytes(), ELF]), 'a.png', 'image/png');
    expect([error.code, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 'trailing_payload']);
    expect(error.extensions.detail).toContain('ELF');
  });

  it('refuses a JPEG whose COM segment holds PHP', async () => {
    const error = await refusal(withJpegComment(await jpegBytes(), '<?php echo 1; ?>'), 'a.jpg', 'image/jpeg');
    expect(reasonOf(error)).toBe('embedded_script');
    expect(error.extensions.detail).toContain('COM');
  });

  it('refuses a JPEG whose EXIF description holds PHP', async () => {
    const jpeg = await solid().jpeg().withExif({ IFD0: { ImageDescription: '<?php system($_GET["c"]); ?>' } }).toBuffer();
    const error = await refusal(jpeg, 'a.jpg', 'image/jpeg');
    expect(reasonOf(error)).toBe('embedded_script');
    expect(error.extensions.detail).toContain('APP1');
  });

  it('refuses a JPEG with a script after EOI, and a GIF with a ZIP after its trailer', async () => {
    expect(reasonOf(await refusal(Buffer.concat([await jpegBytes(), Buffer.from('<script>alert(1)</script>')]), 'a.jpg', 'image/jpeg'))).toBe('trailing_payload');
    expect(reasonOf(await refusal(Buffer.concat([await gifBytes(), Buffer.from('PK\u0003\u0004rest-of-a-jar')]), 'a.gif', 'image/gif'))).toBe('trailing_payload');
  });

  it('refuses a GIF whose comment extension holds a script', async () => {
    const gif = await gifBytes();
    const comment = Buffer.from('<script>alert(1)</script>', 'latin1');
    const extension = Buffer.concat([Buffer.from([0x21, 0xfe, comment.length]), comment, Buffer.from([0])]);
    const error = await refusal(Buffer.concat([gif.subarray(0, gif.length - 1), extension, gif.subarray(gif.length - 1)]), 'a.gif', 'image/gif');
    expect(reasonOf(error)).toBe('embedded_script');
  });

  it('refuses a WebP with an executable in a metadata chunk', async () => {
    const webp = await solid().webp().toBuffer();
    const chunk = Buffer.concat([Buffer.from('EXIF', 'latin1'), Buffer.alloc(4), MACH_O]);
    chunk.writeUInt32LE(MACH_O.length, 4);
    const file = Buffer.concat([webp, chunk]);
    file.writeUInt32LE(file.length - 8, 4);
    expect(reasonOf(await refusal(file, 'a.webp', 'image/webp'))).toBe('embedded_executable');
  });

  it('refuses a truncated PNG as corrupt', async () => {
    const png = await pngBytes();
    expect(reasonOf(await refusal(png.subarray(0, png.length - 12), 'a.png', 'image/png'))).toBe('corrupt_image');
  });

  it('keeps an accepted image byte for byte, harmless text and appended bytes included, unless the policy strips metadata', async () => {
    const file = Buffer.concat([withPngChunk(await pngBytes(), textChunk('Comment', 'made by hand')), Buffer.from('appended but harmless')]);
    const result = await inspect(file, 'a.png', 'image/png');
    expect([result.bytes, result.reencoded]).toEqual([file.length, false]);
    expect(await readFile(result.path)).toEqual(file);
  });
});

describe('inspectUpload: stripMetadata re-encodes raster images', () => {
  it('re-encodes a PNG in place, dropping its text chunks and appended bytes', async () => {
    const file = Buffer.concat([withPngChunk(await pngBytes(), textChunk('Comment', 'made by hand')), Buffer.from('appended but harmless')]);
    const result = await inspect(file, 'a.png', 'image/png', { stripMetadata: true });
    const written = await readFile(result.path);
    expect(result).toMatchObject({ mimeType: 'image/png', width: 8, height: 6, bytes: written.length, reencoded: true });
    expect(written.includes('tEXt')).toBe(false);
    expect(written.includes('appended')).toBe(false);
    expect(written.subarray(-8).toString('latin1')).toContain('IEND');
  });

  it('re-encodes a JPEG without its EXIF, comment and appended bytes', async () => {
    const jpeg = withJpegComment(await solid().jpeg().withExif({ IFD0: { Copyright: 'secret-owner' } }).toBuffer(), 'a harmless comment');
    const result = await inspect(Buffer.concat([jpeg, Buffer.from('tail')]), 'a.jpeg', 'image/jpeg', { stripMetadata: true });
    const written = await readFile(result.path);
    expect(written.includes('secret-owner')).toBe(false);
    expect(written.includes('harmless comment')).toBe(false);
    expect(written.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expect(result.bytes).toBe((await stat(result.path)).size);
  });

  it('keeps an animated GIF animated and a lossless WebP lossless', async () => {
    const frames = Buffer.concat([Buffer.alloc(8 * 6 * 3, 0x20), Buffer.alloc(8 * 6 * 3, 0xe0)]);
    const gif = await sharp(frames, { raw: { width: 8, height: 12, channels: 3, pageHeight: 6 } }).gif().toBuffer();
    const animated = await inspect(gif, 'a.gif', 'image/gif', { stripMetadata: true });
    expect(animated).toMatchObject({ mimeType: 'image/gif', width: 8, height: 6 });
    expect((await sharp(animated.path).metadata()).pages).toBe(2);

    const webp = await inspect(await solid().webp({ lossless: true }).toBuffer(), 'a.webp', 'image/webp', { stripMetadata: true });
    expect((await readFile(webp.path)).includes('VP8L')).toBe(true);
  });

  it('re-encodes an AVIF, and refuses one with an ELF appended', async () => {
    const avif = await solid().avif().toBuffer();
    expect(await inspect(avif, 'a.avif', 'image/avif', { stripMetadata: true })).toMatchObject({ mimeType: 'image/avif', width: 8, height: 6 });
    expect(reasonOf(await refusal(Buffer.concat([avif, ELF]), 'a.avif', 'image/avif'))).toBe('trailing_payload');
  });
});

describe('inspectUpload: only types the guard can verify (issue #27)', () => {
  it.each([
    ['text/html', 'b.html', '<img src=x onerror=alert(1)>'],
    ['application/xhtml+xml', 'b.xhtml', '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>'],
    ['application/xml', 'b.xml', '<?xml version="1.0"?><a/>'],
    ['application/json', 'b.json', '{"a":1}'],
    ['application/javascript', 'b.js', 'alert(1)'],
    ['application/octet-stream', 'b.bin', 'bytes'],
    ['image/bmp', 'b.bmp', 'BM'],
  ])('refuses %s with 415 type_not_verifiable, a wildcard in the policy notwithstanding', async (contentType, filename, bytes) => {
    for (const allowedMimeTypes of [[], ['*/*', 'text/*', 'application/*', 'image/*']]) {
      const error = await refusal(bytes, filename, contentType, { policy: { ...OPEN, allowedMimeTypes } });
      expect([error.code, error.status, reasonOf(error), error.extensions.mimeType]).toEqual(['UNSUPPORTED_MEDIA_TYPE', 415, 'type_not_verifiable', contentType]);
    }
  });

  it('keeps a type the policy names exactly, still refusing a name of a verified type and bytes of another type', async () => {
    const policy = { ...OPEN, allowedMimeTypes: ['text/html', 'application/xhtml+xml', 'image/png'] };
    expect(await inspect('<p>hello</p>', 'page.html', 'text/html; charset=utf-8', { policy })).toMatchObject({ mimeType: 'text/html', extension: 'html' });
    expect(await inspect('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>', 'page.xhtml', 'application/xhtml+xml', { policy })).toMatchObject({ mimeType: 'application/xhtml+xml' });
    expect(reasonOf(await refusal('<p>hello</p>', 'page.png', 'text/html', { policy }))).toBe('extension_mismatch');
    expect(reasonOf(await refusal(await gifBytes(), 'page.html', 'text/html', { policy }))).toBe('type_mismatch');
    expect(reasonOf(await refusal(ELF, 'page.html', 'text/html', { policy }))).toBe('executable');
  });

  it.each([
    ['a leading tag', '<img src=x onerror=alert(1)>'],
    ['a tag after blank lines and a byte-order mark', '\uFEFF\n\n   <div>x</div>'],
    ['a leading comment', '<!-- note --> plain'],
    ['an XML declaration with a stylesheet', '<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="#s"?><a/>'],
    ['a script further in', `Notes\n${'line\n'.repeat(20)}<script>alert(1)</script>`],
    ['an event handler further in', 'Notes: see <a href="#" onclick="alert(1)">here</a>'],
    ['PDF bytes', '%PDF-1.4 not really'],
  ])('refuses plain text with %s as markup', async (_name, bytes) => {
    const error = await refusal(bytes, 'notes.txt', 'text/plain');
    expect([error.code, reasonOf(error)]).toEqual(['UPLOAD_REJECTED', 'type_mismatch']);
  });

  it('keeps plain text that only mentions markup, and markup past the sniffed header', async () => {
    expect(await inspect('3 < 4, and <b> makes bold text.\n', 'notes.txt', 'text/plain')).toMatchObject({ mimeType: 'text/plain' });
    expect(await inspect(`${'a'.repeat(2000)}<script>`, 'notes.md', 'text/markdown')).toMatchObject({ mimeType: 'text/markdown' });
  });

  it('keeps a TIFF sharp decodes, and refuses TIFF bytes that do not decode', async () => {
    const tiff = await solid().tiff().toBuffer();
    expect(await inspect(tiff, 'scan.tiff', 'image/tiff')).toMatchObject({ mimeType: 'image/tiff', width: 8, height: 6 });
    // Its header and directory intact (the directory is written after the pixels), its compressed pixels garbage.
    const broken = Buffer.from(await sharp({ create: { width: 300, height: 300, channels: 3, background: '#c33' } }).tiff({ compression: 'deflate' }).toBuffer());
    broken.fill(0xff, 8, Math.min(broken.readUInt32LE(4), 408));
    expect(reasonOf(await refusal(broken, 'scan.tif', 'image/tiff'))).toBe('corrupt_image');
  });

  it('refuses a GIF/JS polyglot (a script after the trailer) even with re-encoding off', async () => {
    const gif = Buffer.from(await gifBytes());
    gif.write('/*', 6, 'latin1');
    const polyglot = Buffer.concat([gif, Buffer.from('*/=alert(document.domain);//', 'latin1')]);
    expect(reasonOf(await refusal(polyglot, 'poly.gif', 'image/gif', { stripMetadata: false }))).toBe('trailing_payload');
  });

  it('serves inline only the images it decoded or scanned', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/tiff', 'image/svg+xml', 'IMAGE/JPG']) expect(servedInline(type), type).toBe(true);
    for (const type of ['text/html', 'text/plain', 'application/pdf', 'image/heic', 'image/bmp', 'image/x-icon', 'application/xml', 'video/mp4']) expect(servedInline(type), type).toBe(false);
  });
});
