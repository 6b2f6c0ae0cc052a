// Renders image derivatives with sharp (issue #21) within the environment's limits (input pixels
// against decompression bombs, time per transform, transforms at once), and makes each new
// derivative once however many requests ask for it together.
import type { Metadata, Sharp } from 'sharp';
import { AppError } from '../../../domain/shared/appError.ts';
import { loadSharp, type SharpOpen } from './sharpLoader.ts';
import {
  DEFAULT_QUALITY,
  MAX_TRANSFORM_DIMENSION,
  TRANSFORM_CONTENT_TYPES,
  outputFormatOf,
  type TransformFormat,
  type TransformParams,
} from './transformParams.ts';

export interface ImageTransformerLimits {
  /** Largest width × height of a source (MEDIA_TRANSFORM_MAX_INPUT_PIXELS), read from its header before any decoding. */
  maxInputPixels: number;
  /** Time one render may take once its turn starts (MEDIA_TRANSFORM_TIMEOUT_MS): the answer comes then, whatever sharp is doing. */
  timeoutMs: number;
  /** Renders at once in this instance (MEDIA_TRANSFORM_CONCURRENCY); more wait their turn. */
  concurrency: number;
}

export interface RenderedImage {
  buffer: Buffer;
  contentType: string;
  format: TransformFormat;
  width: number;
  height: number;
}

export interface ImageTransformer {
  /**
   * Renders `input` (bytes or a file path) with normalized parameters. Without `format`, the output
   * is the source's format when it is jpeg, png, webp or avif, else webp. Refusals are 422
   * VALIDATION_FAILED with `extensions.reason`: `input_too_large` (over maxInputPixels),
   * `unsupported_input` (not a raster image sharp reads: SVG and PDF are refused too),
   * `transform_timeout` (over timeoutMs, counted from when its turn starts; waiting for a turn is not counted).
   */
  render(input: Buffer | string, params: TransformParams): Promise<RenderedImage>;
  /**
   * Single flight: while `produce` for `key` runs, every other call for `key` gets its promise
   * instead of a second run (in this instance). Once it settles, the next call runs `produce` again,
   * so `produce` should look for a stored derivative before it renders.
   */
  derive<T>(key: string, produce: () => Promise<T>): Promise<T>;
}

/** Source formats rendered; the rest (svg, pdf, raw, …) are refused. AVIF sources report heif (with av1). */
const RASTER_SOURCES = new Set(['jpeg', 'png', 'webp', 'heif', 'gif', 'tiff']);
const TRANSPARENT = { r: 255, g: 255, b: 255, alpha: 0 };
const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };
const AVIF_EFFORT = 2;

export function createImageTransformer(limits: ImageTransformerLimits): ImageTransformer {
  const turns = createSemaphore(limits.concurrency);
  const inFlight = new Map<string, Promise<unknown>>();
  return {
    async render(input, params) {
      const sharp = await loadSharp(); // before the turn and its deadline: loading the library is not rendering
      await turns.acquire();
      const rendering = renderImage(sharp, input, params, limits);
      // The turn ends when sharp stops, not at the deadline: an abandoned render still holds a CPU.
      void rendering.then(turns.release, turns.release);
      return withDeadline(rendering, limits.timeoutMs);
    },
    derive<T>(key: string, produce: () => Promise<T>): Promise<T> {
      const running = inFlight.get(key);
      if (running) return running as Promise<T>;
      const produced = Promise.resolve()
        .then(produce)
        .finally(() => inFlight.delete(key));
      inFlight.set(key, produced);
      return produced;
    },
  };
}

interface Source {
  width: number;
  height: number;
  format: TransformFormat;
}

async function renderImage(sharp: SharpOpen, input: Buffer | string, params: TransformParams, limits: ImageTransformerLimits): Promise<RenderedImage> {
  const image = sharp(input, { limitInputPixels: limits.maxInputPixels });
  const source = await readSource(image, limits.maxInputPixels);
  const format = params.format ?? source.format;
  // libvips stops a pipeline past this (whole seconds); AVIF encoding it cannot stop: withDeadline answers.
  image.autoOrient().timeout({ seconds: Math.max(1, Math.ceil(limits.timeoutMs / 1000)) });
  resize(image, source, params, format === 'jpeg' ? WHITE : TRANSPARENT);
  encode(image, format, params.quality);
  try {
    const { data, info } = await image.toBuffer({ resolveWithObject: true });
    return { buffer: data, contentType: TRANSFORM_CONTENT_TYPES[format], format, width: info.width, height: info.height };
  } catch (error) {
    throw renderRefusal(error, limits);
  }
}

/** The source's upright size and output format, from its header only: a bomb is refused before it is decoded. */
async function readSource(image: Sharp, maxInputPixels: number): Promise<Source> {
  let metadata: Metadata;
  try {
    metadata = await image.metadata();
  } catch (error) {
    throw renderRefusal(error, { maxInputPixels });
  }
  // HEIC (HEVC in a heif box) is not decoded by sharp's own libvips: refused here rather than failing later.
  if (!RASTER_SOURCES.has(metadata.format) || (metadata.format === 'heif' && metadata.compression !== 'av1')) {
    throw refusal('unsupported_input', `Images in ${metadata.format === 'heif' ? String(metadata.compression) : metadata.format} format are not transformed`);
  }
  const { width, height } = metadata.autoOrient;
  if (width * height > maxInputPixels) throw tooLarge(maxInputPixels);
  return { width, height, format: outputFormatOf(metadata.format === 'heif' ? 'avif' : metadata.format) };
}

/**
 * The geometry. Both dimensions with cover, contain or fill: exactly width × height (cover crops,
 * around `focal` when given, else the centre; contain letterboxes, transparent or white for jpeg).
 * Otherwise the aspect ratio is kept: the one dimension given, or with inside the smaller and with
 * outside the larger of the two scales; such a result is scaled down to fit 5000 × 5000 rather than
 * refused, since it depends on the source, not on the parameters.
 */
function resize(image: Sharp, source: Source, params: TransformParams, background: typeof WHITE): void {
  const { width, height, focal } = params;
  const fit = params.fit ?? 'cover';
  if (width !== undefined && height !== undefined && fit !== 'outside' && fit !== 'inside') {
    if (fit === 'cover' && focal) {
      const scale = Math.max(width / source.width, height / source.height);
      const scaledWidth = Math.max(width, Math.round(source.width * scale));
      const scaledHeight = Math.max(height, Math.round(source.height * scale));
      const left = clamp(Math.round(focal.x * scaledWidth - width / 2), 0, scaledWidth - width);
      const top = clamp(Math.round(focal.y * scaledHeight - height / 2), 0, scaledHeight - height);
      image.resize({ width: scaledWidth, height: scaledHeight, fit: 'fill' }).extract({ left, top, width, height });
      return;
    }
    image.resize({ width, height, fit, background });
    return;
  }
  const scales = [width === undefined ? undefined : width / source.width, height === undefined ? undefined : height / source.height].filter((scale) => scale !== undefined);
  const asked = scales.length === 0 ? 1 : fit === 'inside' ? Math.min(...scales) : Math.max(...scales);
  const scale = Math.min(asked, MAX_TRANSFORM_DIMENSION / source.width, MAX_TRANSFORM_DIMENSION / source.height);
  if (scale === 1) return;
  image.resize({ width: Math.max(1, Math.round(source.width * scale)), height: Math.max(1, Math.round(source.height * scale)), fit: 'fill' });
}

function encode(image: Sharp, format: TransformFormat, quality: number | undefined): void {
  if (format === 'png') {
    image.png();
    return;
  }
  const options = { quality: quality ?? DEFAULT_QUALITY[format] };
  if (format === 'jpeg') image.flatten({ background: WHITE }).jpeg(options);
  else if (format === 'webp') image.webp(options);
  // libaom's default effort (4) takes seconds per megapixel and cannot be interrupted; 2 is ~10× faster.
  else image.avif({ ...options, effort: AVIF_EFFORT });
}

/** sharp's errors that are the source's or the limits' doing, as 422s; anything else stays a failure (500). */
function renderRefusal(error: unknown, limits: Partial<ImageTransformerLimits>): unknown {
  const message = error instanceof Error ? error.message : '';
  if (/pixel limit/i.test(message)) return tooLarge(limits.maxInputPixels!);
  if (/timeout/i.test(message)) return timedOut(limits.timeoutMs!);
  if (/unsupported image format|corrupt|premature|truncated|unexpected end|bad seek|invalid input|read error|Vips(?:Jpeg|Png|Foreign)/i.test(message)) {
    return refusal('unsupported_input', 'The source is not a readable image');
  }
  return error;
}

function timedOut(timeoutMs: number): AppError {
  return refusal('transform_timeout', `The transform took longer than ${timeoutMs} ms`, { timeoutMs });
}

/** Rejects with transform_timeout after `timeoutMs` unless `rendering` settled first. */
function withDeadline<T>(rendering: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(timeoutMs)), timeoutMs);
  });
  return Promise.race([rendering, deadline]).finally(() => clearTimeout(timer));
}

function tooLarge(maxInputPixels: number): AppError {
  return refusal('input_too_large', `The source image has more than ${maxInputPixels} pixels`, { maxInputPixels });
}

function refusal(reason: string, message: string, extensions: Record<string, unknown> = {}): AppError {
  return new AppError('VALIDATION_FAILED', message, { unprocessable: true, extensions: { reason, ...extensions } });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

/** At most `limit` turns at once; the rest wait in order, and a freed turn passes straight to the next waiter. */
function createSemaphore(limit: number): { acquire: () => Promise<void>; release: () => void } {
  let free = limit;
  const waiting: (() => void)[] = [];
  return {
    acquire() {
      if (free > 0) {
        free -= 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    },
  };
}
