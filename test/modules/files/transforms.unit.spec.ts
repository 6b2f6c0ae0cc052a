// Image transforms without a database: the parameter schema, presets, derivative keys, and renders of
// real images made with sharp, read back with sharp.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { createImageTransformer } from '../../../src/modules/files/imageTransformer.ts';
import { derivativeKey, hasTransform, isDerivativeKey, parsePresetDsl, parseTransform, resolveOutputFormat } from '../../../src/modules/files/transformParams.ts';

const limits = { maxInputPixels: 50_000_000, timeoutMs: 10_000, concurrency: 2 };
const transformer = createImageTransformer(limits);

const solid = (width: number, height: number, background = '#3366cc') => sharp({ create: { width, height, channels: 3, background } });
const noise = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });

async function refusal(work: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

const invalidAt = async (work: Promise<unknown>) => {
  const error = await refusal(work);
  return { code: error.code, status: error.status, path: error.path };
};

const resolved = async (query: Record<string, unknown>, contentType = 'image/jpeg') => resolveOutputFormat(await parseTransform(query), contentType);

describe('transform parameters', () => {
  it('reads each parameter from the query string', async () => {
    const all = { width: '400', height: '300', format: 'avif', quality: '60', fit: 'contain' };
    expect(await parseTransform(all)).toEqual({ width: 400, height: 300, format: 'avif', quality: 60, fit: 'contain' });
    expect(await parseTransform({ width: '10', height: '20', focal: '0.25,1' })).toEqual({ width: 10, height: 20, fit: 'cover', focal: { x: 0.25, y: 1 } });
    expect(await parseTransform({ width: '1', other: 'left to the route' })).toEqual({ width: 1 });
  });

  it.each([
    ['width', ['0', '-1', '1.5', 'abc', '', '5001', ['1', '2']]],
    ['height', ['0', '12px', '5001', '99999999999']],
    ['format', ['gif', 'jpg', 'WEBP', '']],
    ['quality', ['0', '101', 'high', '50.5']],
    ['fit', ['crop', 'scale-down', '']],
    ['focal', ['0.5', '1.2,0.5', '0.5,-0.1', 'a,b', '0.5,0.5,0.5', '0.5 ,0.5', '']],
    ['preset', ['']],
  ] as const)('refuses a bad %s with 400 at its path', async (name, values) => {
    for (const value of values) expect(await invalidAt(parseTransform({ [name]: value }))).toEqual({ code: 'VALIDATION_FAILED', status: 400, path: ['query', name] });
  });

  it('caps dimensions at 5000: 5000 is taken, 5001 refused, in the query and in a dsl', async () => {
    expect(await parseTransform({ width: '5000', height: '5000' })).toMatchObject({ width: 5000, height: 5000 });
    const error = await refusal(parseTransform({ height: '5001' }));
    expect(error.message).toContain('5000');
    expect((await refusal(() => parsePresetDsl({ width: 6000 }))).path).toEqual(['body', 'dsl', 'width']);
  });

  it('checks a preset dsl with the same schema, refusing unknown keys', async () => {
    expect(parsePresetDsl({ width: 300, quality: '70', focal: '0.1,0.2', format: 'webp' })).toEqual({ width: 300, quality: 70, focal: '0.1,0.2', format: 'webp' });
    expect((await refusal(() => parsePresetDsl({ widht: 300 }))).path).toEqual(['body', 'dsl', 'widht']);
    expect((await refusal(() => parsePresetDsl({ preset: 'other' }))).path).toEqual(['body', 'dsl', 'preset']);
    expect((await refusal(() => parsePresetDsl({ fit: 'crop' }, ['dsl']))).path).toEqual(['dsl', 'fit']);
    expect((await refusal(() => parsePresetDsl('width=3'))).path).toEqual(['body', 'dsl']);
  });

  it('merges a preset under the query: explicit parameters override the preset', async () => {
    const presets: Record<string, unknown> = { thumb: { width: 800, height: 600, format: 'webp', quality: 70, focal: '0.2,0.3' } };
    const lookup = async (key: string) => presets[key] ?? null;
    expect(await parseTransform({ preset: 'thumb' }, lookup)).toEqual({ width: 800, height: 600, format: 'webp', quality: 70, fit: 'cover', focal: { x: 0.2, y: 0.3 } });
    expect(await parseTransform({ preset: 'thumb', width: '400', format: 'png' }, lookup)).toEqual({ width: 400, height: 600, format: 'png', fit: 'cover', focal: { x: 0.2, y: 0.3 } });
    // A fit other than cover drops the preset's focal point: it has no effect there.
    expect(await parseTransform({ preset: 'thumb', fit: 'contain' }, lookup)).toEqual({ width: 800, height: 600, format: 'webp', quality: 70, fit: 'contain' });
  });

  it('refuses an unknown preset, a preset without a lookup and a stored dsl that no longer checks, at query.preset', async () => {
    const lookup = (key: string) => (key === 'broken' ? { width: 9000 } : null);
    for (const [query, withLookup] of [[{ preset: 'nope' }, true], [{ preset: 'thumb' }, false], [{ preset: 'broken' }, true]] as const) {
      expect(await invalidAt(parseTransform(query, withLookup ? lookup : undefined))).toEqual({ code: 'VALIDATION_FAILED', status: 400, path: ['query', 'preset'] });
    }
  });

  it('says whether a query asks for a transform', () => {
    expect([{}, { download: '1', v: '2' }, { width: '10' }, { preset: 'thumb' }].map(hasTransform)).toEqual([false, false, true, true]);
  });

  it('gives equal normalized parameters one derivative key, and anything else another', async () => {
    const key = async (query: Record<string, unknown>, objectKey = 'media/photo.jpg', version = 'v1', source = 'image/jpeg') => derivativeKey(objectKey, await resolved(query, source), version);
    const base = await key({ width: '400', format: 'webp' });
    expect(base).toMatch(/^media\/photo\.jpg\.derivatives\/[0-9a-f]{64}\.webp$/);
    expect([isDerivativeKey(base), isDerivativeKey('media/photo.jpg')]).toEqual([true, false]);
    expect(await key({ format: 'webp', width: '400' })).toBe(base);
    expect(await key({ width: '400', format: 'webp', quality: '80' })).toBe(base); // webp's default quality
    expect(await key({ width: '400', format: 'webp', fit: 'contain' })).toBe(base); // fit needs both dimensions
    expect(await key({ width: '400', format: 'webp', focal: '0.1,0.9' })).toBe(base); // focal needs cover
    expect(await key({ width: '400' }, undefined, undefined, 'image/webp')).toBe(base); // no format: the webp source's
    expect(await key({ width: '10', height: '10' })).toBe(await key({ width: '10', height: '10', fit: 'cover' }));
    expect(await key({ width: '10', height: '10', focal: '0.5,0.5' })).toBe(await key({ width: '10', height: '10', focal: '0.50,0.5000' }));
    const different = await Promise.all([
      key({ width: '401', format: 'webp' }),
      key({ width: '400', format: 'avif' }),
      key({ width: '400', format: 'webp', quality: '81' }),
      key({ height: '400', format: 'webp' }),
      key({ width: '400', format: 'webp' }, 'media/other.jpg'),
      key({ width: '400', format: 'webp' }, 'media/photo.jpg', 'v2'),
      key({ width: '400' }), // jpeg from the jpeg source
    ]);
    expect(new Set([base, ...different]).size).toBe(different.length + 1);
  });

  it('keeps a derivative key of a very long object key within the object key limit', async () => {
    const derived = derivativeKey(`media/${'a'.repeat(500)}`, await resolved({ width: '10' }), 'v1');
    expect(derived).toMatch(/^\.derivatives\/[0-9a-f]{64}\/[0-9a-f]{64}\.jpeg$/);
  });
});

describe('rendering', () => {
  const photo = solid(400, 300).jpeg().toBuffer();

  it('resizes to the asked width or height, keeping the aspect ratio', async () => {
    expect(await transformer.render(await photo, { width: 200 })).toMatchObject({ width: 200, height: 150, format: 'jpeg', contentType: 'image/jpeg' });
    expect(await transformer.render(await photo, { height: 60 })).toMatchObject({ width: 80, height: 60 });
  });

  it.each([['cover', 100, 100], ['contain', 100, 100], ['fill', 100, 100], ['inside', 100, 75], ['outside', 133, 100]] as const)('fits %s into 100×100', async (fit, width, height) => {
    const rendered = await transformer.render(await photo, { width: 100, height: 100, fit, format: 'png' });
    expect(await sharp(rendered.buffer).metadata()).toMatchObject({ width, height, format: 'png' });
    expect({ width: rendered.width, height: rendered.height }).toEqual({ width, height });
  });

  it('letterboxes contain with transparency, or white in a jpeg', async () => {
    const corner = async (format: 'png' | 'jpeg') => {
      const rendered = await transformer.render(await photo, { width: 100, height: 100, fit: 'contain', format });
      return [...(await sharp(rendered.buffer).extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer())];
    };
    expect(await corner('png')).toEqual([255, 255, 255, 0]);
    expect((await corner('jpeg')).every((channel) => channel > 245)).toBe(true);
  });

  it.each([['jpeg', 'jpeg', 'image/jpeg'], ['png', 'png', 'image/png'], ['webp', 'webp', 'image/webp'], ['avif', 'heif', 'image/avif']] as const)('encodes %s', async (format, decoder, contentType) => {
    const rendered = await transformer.render(await photo, { width: 64, format });
    expect(rendered.contentType).toBe(contentType);
    const metadata = await sharp(rendered.buffer).metadata();
    expect(metadata).toMatchObject({ format: decoder, width: 64, height: 48 });
    if (format === 'avif') expect(metadata.compression).toBe('av1');
  });

  it('keeps the source format when none is asked for, and makes webp of other formats', async () => {
    const png = await solid(40, 20).png().toBuffer();
    expect((await transformer.render(png, { width: 20 })).format).toBe('png');
    const gif = await solid(40, 20).gif().toBuffer();
    expect(await transformer.render(gif, { width: 20 })).toMatchObject({ format: 'webp', width: 20, height: 10 });
  });

  it('follows quality: a lower quality is a smaller file', async () => {
    const detailed = await noise(300, 300).png().toBuffer();
    for (const format of ['jpeg', 'webp', 'avif'] as const) {
      const low = await transformer.render(detailed, { format, quality: 10 });
      const high = await transformer.render(detailed, { format, quality: 90 });
      expect(low.buffer.length).toBeLessThan(high.buffer.length / 2);
    }
  });

  it('crops cover around the focal point', async () => {
    // Left half red, right half blue: a square crop at x=0 is red, at x=1 blue, at the centre both.
    const blue = { create: { width: 100, height: 100, channels: 3 as const, background: '#0000ff' } };
    const halves = await solid(200, 100, '#ff0000').composite([{ input: blue, left: 100, top: 0 }]).png().toBuffer();
    const means = async (focal?: { x: number; y: number }) => {
      const rendered = await transformer.render(halves, { width: 50, height: 50, fit: 'cover', format: 'png', ...(focal ? { focal } : {}) });
      expect({ width: rendered.width, height: rendered.height }).toEqual({ width: 50, height: 50 });
      const { channels } = await sharp(rendered.buffer).stats();
      return { red: channels[0]!.mean, blue: channels[2]!.mean };
    };
    // Within a few levels: the resampling kernel reaches a pixel across the border.
    expect(await means({ x: 0, y: 0.5 })).toEqual({ red: expect.closeTo(255, -1), blue: expect.closeTo(0, -1) });
    expect(await means({ x: 1, y: 0.5 })).toEqual({ red: expect.closeTo(0, -1), blue: expect.closeTo(255, -1) });
    const centre = await means();
    expect(centre.red).toBeGreaterThan(100);
    expect(centre.blue).toBeGreaterThan(100);
  });

  it('applies EXIF orientation before sizing', async () => {
    const sideways = await solid(200, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await transformer.render(sideways, { width: 50 })).toMatchObject({ width: 50, height: 100 });
  });

  it('never renders above 5000 px, even when the source decides the other side', async () => {
    const tall = await solid(10, 200).png().toBuffer();
    expect(await transformer.render(tall, { width: 500 })).toMatchObject({ width: 250, height: 5000 });
    expect(await transformer.render(tall, { width: 5000, height: 10, fit: 'outside' })).toMatchObject({ width: 250, height: 5000 });
  });

  it('renders from a file path', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'svc-transform-')), 'photo.jpg');
    await writeFile(path, await photo);
    expect(await transformer.render(path, { width: 40, format: 'webp' })).toMatchObject({ width: 40, height: 30, format: 'webp' });
  });
});

describe('limits', () => {
  const reasonOf = async (work: Promise<unknown>) => {
    const error = await refusal(work);
    return { code: error.code, status: error.status, reason: error.extensions.reason };
  };

  it('refuses a source over the pixel limit before decoding it', async () => {
    const big = await solid(2000, 2000).png().toBuffer();
    const strict = createImageTransformer({ ...limits, maxInputPixels: 1_000_000 });
    expect(await reasonOf(strict.render(big, { width: 10 }))).toEqual({ code: 'VALIDATION_FAILED', status: 422, reason: 'input_too_large' });
  });

  it('refuses a PNG whose header declares 100000 × 100000 pixels (a decompression bomb)', async () => {
    const png = await solid(1, 1).png().toBuffer();
    // IHDR starts at byte 8: length (4), "IHDR" (4), width (4), height (4), ... and its CRC over type and data.
    png.writeUInt32BE(100_000, 16);
    png.writeUInt32BE(100_000, 20);
    png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
    expect(await reasonOf(transformer.render(png, { width: 10 }))).toEqual({ code: 'VALIDATION_FAILED', status: 422, reason: 'input_too_large' });
  });

  it('refuses bytes that are no raster image', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    for (const input of [Buffer.from('not an image'), svg, (await noise(200, 200).jpeg().toBuffer()).subarray(0, 2000)]) {
      expect(await reasonOf(transformer.render(input, { width: 10 }))).toEqual({ code: 'VALIDATION_FAILED', status: 422, reason: 'unsupported_input' });
    }
  });

  it('answers transform_timeout at the deadline, and the transformer works on', async () => {
    const slow = createImageTransformer({ ...limits, timeoutMs: 100, concurrency: 1 });
    // An AVIF encode of 2.25 megapixels of noise takes most of a second, and libaom cannot be interrupted.
    const source = await noise(1500, 1500).jpeg().toBuffer();
    expect(await reasonOf(slow.render(source, { format: 'avif' }))).toEqual({ code: 'VALIDATION_FAILED', status: 422, reason: 'transform_timeout' });
    // The abandoned render keeps the one turn until sharp stops; the next render then runs in its own time.
    expect(await slow.render(await solid(20, 20).png().toBuffer(), { width: 10 })).toMatchObject({ width: 10, height: 10 });
  });
});

describe('concurrency and single flight', () => {
  it('renders at most `concurrency` images at once; the others wait their turn', async () => {
    const source = await noise(1000, 1000).jpeg().toBuffer();
    const mostAtOnce = async (concurrency: number) => {
      const limited = createImageTransformer({ ...limits, concurrency });
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, sharp.counters().process)), 1);
      await Promise.all(Array.from({ length: 6 }, () => limited.render(source, { width: 300, format: 'webp' })));
      clearInterval(watch);
      return most;
    };
    expect(await mostAtOnce(1)).toBe(1);
    expect(await mostAtOnce(3)).toBeGreaterThan(1);
  });

  it('runs the producer once for 50 concurrent requests of one derivative, and again once it settled', async () => {
    const source = await noise(600, 600).jpeg().toBuffer();
    let renders = 0;
    const produce = async () => {
      renders += 1;
      return transformer.render(source, { width: 100, format: 'webp' });
    };
    const results = await Promise.all(Array.from({ length: 50 }, () => transformer.derive('media/a.jpg.derivatives/x.webp', produce)));
    expect(renders).toBe(1);
    expect(new Set(results).size).toBe(1);
    expect(results[0]).toMatchObject({ width: 100, height: 100, format: 'webp' });
    await transformer.derive('media/a.jpg.derivatives/x.webp', produce);
    expect(renders).toBe(2);
  });

  it('shares a failure with the waiting requests, then tries again', async () => {
    let calls = 0;
    const failing = async () => Promise.reject(new Error(`storage down (${(calls += 1)})`));
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => transformer.derive('k', failing)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(10).fill('rejected'));
    expect(calls).toBe(1);
    expect(await transformer.derive('k', async () => 'ok')).toBe('ok');
  });
});
