// Stored XSS through uploads (issue #27, finding 1) over real HTTP: every hostile payload of the
// security review is refused by the upload guard, or, where a site's policy lists its type, stored and
// only ever served as an inert attachment (nosniff, a sandboxing CSP). Legitimate images, PDFs, text,
// audio and archives still upload; images are served inline under a CSP that runs nothing.
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createTestSite, startTestServiceForFile, type TestSite } from '../../support/testService.ts';
import { CLEAN_SVG, jpegBytes, onlyError, pngBytes, sendRaw, storedKeys, type RawResponse } from './support.ts';

const service = await startTestServiceForFile();

const ATTACHMENT_CSP = "sandbox; default-src 'none'";
const IMAGE_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'";

const HTML_IMG = '<img src=x onerror=alert(document.domain)>';
const XHTML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><script>alert(document.domain)</script></body></html>';
const XML_WITH_XHTML_SCRIPT =
  '<?xml version="1.0" encoding="UTF-8"?>\n<feed><entry><script xmlns="http://www.w3.org/1999/xhtml">alert(document.domain)</script></entry></feed>';
const XML_WITH_XSLT =
  '<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet type="text/xsl" href="#style"?>\n<doc><xsl:stylesheet id="style" version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">' +
  '<xsl:template match="/"><html xmlns="http://www.w3.org/1999/xhtml"><body><script>alert(document.domain)</script></body></html></xsl:template></xsl:stylesheet></doc>';
const HTML_DOCUMENT = `<!DOCTYPE html>\n<html><body>${HTML_IMG}<script>fetch('/api/v1/auth/refresh',{method:'POST',credentials:'include'})</script></body></html>`;

/** A GIF whose header reads as the start of a JS comment (`GIF89a/*`), with script after its trailer: a GIF and a script at once. */
async function polyglotGif(): Promise<Buffer> {
  const gif = Buffer.from(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#c33' } }).gif().toBuffer());
  gif.write('/*', 6, 'latin1'); // the logical screen width: 0x2a2f, still a valid GIF
  return Buffer.concat([gif, Buffer.from('*/=alert(document.domain);//', 'latin1')]);
}

/** The smallest well-formed PDF: one empty page. */
function pdfBytes(): Buffer {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>'];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A one-second silent 8 kHz mono WAV. */
function wavBytes(): Buffer {
  const samples = Buffer.alloc(8000, 0x80);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

const admin = (site: TestSite, method: string, path: string, body?: unknown) =>
  service.request(method, path, { site: site.siteId, token: site.adminToken, ...(body === undefined ? {} : { body }) });
const postMedia = (site: TestSite, key: string, contentType: string, body: Buffer | string) =>
  sendRaw(service, 'POST', `/media/${key}`, { site: site.siteId, token: site.adminToken, contentType, body });
const get = (site: TestSite, path: string) => sendRaw(service, 'GET', path, { site: site.siteId, token: site.adminToken });

async function uploaded(site: TestSite, key: string, contentType: string, body: Buffer | string): Promise<{ id: string; type: string }> {
  const created = await postMedia(site, key, contentType, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

/** An answer a browser downloads and never renders or runs. */
function expectInertAttachment(answer: RawResponse, what: string) {
  expect(answer.status, what).toBe(200);
  expect(answer.headers.get('content-disposition'), what).toMatch(/^attachment;/);
  expect(answer.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(answer.headers.get('content-security-policy'), what).toBe(ATTACHMENT_CSP);
}

/** Both ways stored bytes are served: the asset URL and the media key. */
async function expectServedAsAttachment(site: TestSite, key: string, id: string) {
  expectInertAttachment(await get(site, `/assets/${id}`), `GET /assets/${id}`);
  expectInertAttachment(await get(site, `/media/${key}`), `GET /media/${key}`);
}

async function expectNothingKept(site: TestSite, key: string) {
  expect((await admin(site, 'GET', '/files')).body.meta.total).toBe(0);
  expect(await storedKeys(service, site.siteId)).toEqual([]);
  expect((await get(site, `/media/${key}`)).status).toBe(404);
}

describe('the payloads of the security review are refused by default', () => {
  it.each([
    ['HTML with an onerror handler', 'b.html', 'text/html', () => HTML_IMG, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['an HTML document', 'page.htm', 'text/html; charset=utf-8', () => HTML_DOCUMENT, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['XHTML with a script', 'b.xhtml', 'application/xhtml+xml', () => XHTML, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['XML with an XHTML script', 'b.xml', 'application/xml', () => XML_WITH_XHTML_SCRIPT, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['XML with an XHTML script as text/xml', 'c.xml', 'text/xml', () => XML_WITH_XHTML_SCRIPT, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['XML with an XSLT stylesheet', 'style.xml', 'application/xml', () => XML_WITH_XSLT, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['XML with an XSLT stylesheet declared as text', 'style.txt', 'text/plain', () => XML_WITH_XSLT, 422, 'UPLOAD_REJECTED', 'type_mismatch'],
    ['XML with an XSLT stylesheet declared as SVG', 'style.svg', 'image/svg+xml', () => XML_WITH_XSLT, 422, 'UPLOAD_REJECTED', undefined],
    ['an HTML body named .png', 'b.png', 'image/png', () => HTML_DOCUMENT, 422, 'UPLOAD_REJECTED', 'type_mismatch'],
    ['an HTML body named .png declared as HTML', 'c.png', 'text/html', () => HTML_DOCUMENT, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['HTML declared as plain text', 'b.txt', 'text/plain', () => HTML_IMG, 422, 'UPLOAD_REJECTED', 'type_mismatch'],
    ['an HTML document declared as plain text', 'page.txt', 'text/plain', () => `\n\n  ${HTML_DOCUMENT}`, 422, 'UPLOAD_REJECTED', 'type_mismatch'],
    ['a GIF/JS polyglot declared as a script', 'poly.js', 'text/javascript', polyglotGif, 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
    ['a GIF/JS polyglot declared as plain text', 'poly.txt', 'text/plain', polyglotGif, 422, 'UPLOAD_REJECTED', 'type_mismatch'],
    ['bytes of an unknown type', 'blob.bin', 'application/octet-stream', () => Buffer.from([1, 2, 3, 4]), 415, 'UNSUPPORTED_MEDIA_TYPE', 'type_not_verifiable'],
  ])('%s (%s as %s)', async (_name, key, contentType, body, status, code, reason) => {
    const site = await createTestSite(service, 'xss');
    const refused = await postMedia(site, key, contentType, await body());
    const error = onlyError(refused);
    expect([refused.status, error.code], JSON.stringify(refused.body)).toEqual([status, code]);
    if (reason) expect(error.extensions.reason).toBe(reason);
    await expectNothingKept(site, key);
  });

  it('refuses HTML through the signed upload URL and the registration too', async () => {
    const site = await createTestSite(service, 'xss');
    const presigned = await admin(site, 'POST', '/files/presigned-url', { filename: 'b.html', contentType: 'text/html' });
    const put = await sendRaw(service, 'PUT', presigned.body.data.url, { headers: presigned.body.data.headers, body: HTML_IMG });
    expect([put.status, onlyError(put).extensions.reason]).toEqual([415, 'type_not_verifiable']);
    expect(await storedKeys(service, site.siteId)).toEqual([]);
  });

  it('refuses a GIF/JS polyglot declared as a GIF: the script after the trailer is a trailing payload', async () => {
    const site = await createTestSite(service, 'xss');
    const refused = await postMedia(site, 'poly.gif', 'image/gif', await polyglotGif());
    expect([refused.status, onlyError(refused).code, onlyError(refused).extensions.reason]).toEqual([422, 'UPLOAD_REJECTED', 'trailing_payload']);
    await expectNothingKept(site, 'poly.gif');
  });
});

describe('a type the site policy lists is kept, and only ever served as an inert attachment', () => {
  it.each([
    ['b.html', 'text/html', HTML_IMG],
    ['b.xhtml', 'application/xhtml+xml', XHTML],
    ['b.xml', 'application/xml', XML_WITH_XHTML_SCRIPT],
    ['style.xml', 'application/xml', XML_WITH_XSLT],
  ])('%s as %s', async (key, contentType, body) => {
    const site = await createTestSite(service, 'xss');
    expect((await admin(site, 'PUT', '/uploads/config', { allowedMimeTypes: ['image/png', contentType] })).status).toBe(200);
    const file = await uploaded(site, key, contentType, body);
    expect(file.type).toBe(contentType);
    await expectServedAsAttachment(site, key, file.id);
    expect((await get(site, `/assets/${file.id}`)).bytes.toString('utf8')).toBe(body);
  });

  it('a wildcard in the policy does not open a type the guard cannot verify', async () => {
    const site = await createTestSite(service, 'xss');
    expect((await admin(site, 'PUT', '/uploads/config', { allowedMimeTypes: ['*/*', 'text/*', 'application/*'] })).status).toBe(200);
    const refused = await postMedia(site, 'b.html', 'text/html', HTML_IMG);
    expect([refused.status, onlyError(refused).extensions.reason]).toEqual([415, 'type_not_verifiable']);
    await uploaded(site, 'notes.txt', 'text/plain', 'still fine\n');
  });

  it('a listed type still meets the other checks: a name of another type, an executable', async () => {
    const site = await createTestSite(service, 'xss');
    expect((await admin(site, 'PUT', '/uploads/config', { allowedMimeTypes: ['text/html', 'image/png'] })).status).toBe(200);
    const named = await postMedia(site, 'b.png', 'text/html', HTML_DOCUMENT);
    expect([named.status, onlyError(named).extensions.reason]).toEqual([422, 'extension_mismatch']);
    const gif = await postMedia(site, 'b.html', 'text/html', await polyglotGif());
    expect([gif.status, onlyError(gif).extensions.reason]).toEqual([422, 'type_mismatch']);
  });
});

describe('legitimate uploads still upload and serve', () => {
  it('serves PNG and JPEG inline under an image CSP, with nosniff', async () => {
    const site = await createTestSite(service, 'xss');
    for (const [key, type, bytes] of [['a.png', 'image/png', await pngBytes(20, 10)], ['a.jpg', 'image/jpeg', await jpegBytes(20, 10)]] as const) {
      const file = await uploaded(site, key, type, bytes);
      const served = await get(site, `/assets/${file.id}`);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('content-disposition')).toBe(`inline; filename="${key}"`);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(served.headers.get('content-security-policy')).toBe(IMAGE_CSP);
      const derivative = await get(site, `/assets/${file.id}?width=10&format=webp`);
      expect([derivative.status, derivative.headers.get('x-content-type-options'), derivative.headers.get('content-security-policy')]).toEqual([200, 'nosniff', IMAGE_CSP]);
      // The media route downloads the same image.
      const media = await get(site, `/media/${key}`);
      expect([media.headers.get('content-disposition'), media.headers.get('x-content-type-options')]).toEqual([`attachment; filename="${key}"`, 'nosniff']);
    }
  });

  it('serves a clean SVG inline under a CSP at least as strict as the image one, with a sandbox', async () => {
    const site = await createTestSite(service, 'xss');
    const file = await uploaded(site, 'logo.svg', 'image/svg+xml', CLEAN_SVG);
    const served = await get(site, `/assets/${file.id}`);
    expect(served.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = served.headers.get('content-security-policy') ?? '';
    expect(csp.split(';').map((directive) => directive.trim())).toEqual(expect.arrayContaining(["default-src 'none'", 'sandbox']));
    expect(csp).not.toMatch(/script-src|unsafe-eval/);
  });

  it.each([
    ['a PDF', 'doc.pdf', 'application/pdf', pdfBytes],
    ['plain text', 'notes.txt', 'text/plain', () => 'Meeting notes: 3 < 4 and <b> is a tag.\n'],
    ['CSV', 'table.csv', 'text/csv', () => 'a,b\n1,2\n'],
    ['a WAV', 'sound.wav', 'audio/wav', wavBytes],
    ['a gzip archive', 'data.gz', 'application/gzip', () => gzipSync(Buffer.from('<html><script>alert(1)</script></html>'))],
  ])('keeps %s and serves it as an inert attachment', async (_name, key, contentType, body) => {
    const site = await createTestSite(service, 'xss');
    const bytes = body();
    const file = await uploaded(site, key, contentType, bytes);
    expect(file.type).toBe(contentType);
    await expectServedAsAttachment(site, key, file.id);
    expect((await get(site, `/assets/${file.id}`)).bytes.equals(Buffer.from(bytes))).toBe(true);
  });
});
