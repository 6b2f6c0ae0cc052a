// Image transform parameters (issue #21): the one schema that checks a query string and a preset's
// dsl, preset merging, normalization, and the storage key of a derivative.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { MAX_OBJECT_KEY_LENGTH } from '../../../infra/storage/objectStorage.ts';
import { withoutUndefined } from '../../../domain/shared/withoutUndefined.ts';

/** The spec's dimension cap: a larger `width` or `height` is refused (400), and no render is larger. */
export const MAX_TRANSFORM_DIMENSION = 5000;
export const TRANSFORM_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export const TRANSFORM_FITS = ['cover', 'contain', 'inside', 'outside', 'fill'] as const;
export type TransformFormat = (typeof TRANSFORM_FORMATS)[number];
export type TransformFit = (typeof TRANSFORM_FITS)[number];

export const TRANSFORM_CONTENT_TYPES: Record<TransformFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};
/** The output format when none is asked for and the source is not one of the four. */
export const FALLBACK_FORMAT: TransformFormat = 'webp';
/** sharp's own defaults, written out so `quality=80&format=webp` and `format=webp` are one derivative. PNG is lossless: no quality. */
export const DEFAULT_QUALITY: Record<Exclude<TransformFormat, 'png'>, number> = { jpeg: 80, webp: 80, avif: 50 };
/** Part of every derivative hash: raise it when rendering changes, and every derivative is made anew. */
const RENDERING_VERSION = 1;
/** Focal points are rounded to this many decimals (a few pixels at 5000), so near-equal ones share a derivative. */
const FOCAL_DECIMALS = 3;

const WHOLE_NUMBER = /^[0-9]{1,9}$/;
const FOCAL = /^([0-9]+(?:\.[0-9]+)?),([0-9]+(?:\.[0-9]+)?)$/;

/** A whole number in [min, max]; a query string's digits are read as one. */
function wholeNumber(name: string, min: number, max: number) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && WHOLE_NUMBER.test(value) ? Number(value) : value),
    z.number({ error: message }).int(message).min(min, message).max(max, message),
  );
}

const focalMessage = 'focal must be two numbers from 0 to 1, "x,y" (e.g. 0.5,0.3)';

const transformFields = {
  width: wholeNumber('width', 1, MAX_TRANSFORM_DIMENSION).optional(),
  height: wholeNumber('height', 1, MAX_TRANSFORM_DIMENSION).optional(),
  format: z.enum(TRANSFORM_FORMATS, { error: `format must be one of ${TRANSFORM_FORMATS.join(', ')}` }).optional(),
  quality: wholeNumber('quality', 1, 100).optional(),
  fit: z.enum(TRANSFORM_FITS, { error: `fit must be one of ${TRANSFORM_FITS.join(', ')}` }).optional(),
  // Kept as the string: a checked dsl is stored as is and checks again when a preset is used.
  focal: z
    .string({ error: focalMessage })
    .regex(FOCAL, focalMessage)
    .refine((value) => value.split(',').every((part) => Number(part) <= 1), focalMessage)
    .optional(),
};

/** A preset's `dsl`: the parameters as an object, no `preset`, no other key. */
export const transformDslSchema = z.strictObject(transformFields, { error: 'A transform dsl is an object of transform parameters' });
/** The query string: the parameters and `preset`; other keys are the route's, not checked here. */
export const transformQuerySchema = z.object({
  ...transformFields,
  preset: z.string({ error: 'preset must be a preset key' }).min(1, 'preset must be a preset key').max(100, 'preset must be a preset key').optional(),
});

export type TransformDsl = z.output<typeof transformDslSchema>;
export const TRANSFORM_QUERY_KEYS = ['width', 'height', 'format', 'quality', 'fit', 'focal', 'preset'] as const;

/** Normalized parameters: only what changes the output, with defaults written in, in a fixed key order. */
export interface TransformParams {
  width?: number;
  height?: number;
  format?: TransformFormat;
  quality?: number;
  fit?: TransformFit;
  focal?: { x: number; y: number };
}
/** Parameters whose output format is known (asked for, or the source's): what a derivative is keyed by. */
export type ResolvedTransform = TransformParams & { format: TransformFormat };

/** The dsl of the preset keyed `key` in the caller's site, or null when there is none. */
export type PresetLookup = (key: string) => Promise<unknown> | unknown;

function refusal(error: z.ZodError, prefix: (string | number)[]): AppError {
  const issue = error.issues[0]!;
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const path = [...prefix, ...issue.path.map((part) => (typeof part === 'number' ? part : String(part)))];
  if (unknownKey !== undefined) {
    return new AppError('VALIDATION_FAILED', `Unknown transform parameter "${unknownKey}" (use ${TRANSFORM_QUERY_KEYS.slice(0, -1).join(', ')})`, { path: [...path, unknownKey] });
  }
  return new AppError('VALIDATION_FAILED', issue.message, { path });
}

/** Whether the query asks for a transform at all (any transform parameter, `preset` included). */
export function hasTransform(query: Record<string, unknown>): boolean {
  return TRANSFORM_QUERY_KEYS.some((key) => query[key] !== undefined);
}

/** Checks a preset's dsl: the checked dsl (digits read as numbers), else 400 VALIDATION_FAILED at `path` + the parameter. */
export function parsePresetDsl(value: unknown, path: (string | number)[] = ['body', 'dsl']): TransformDsl {
  const parsed = transformDslSchema.safeParse(value);
  if (!parsed.success) throw refusal(parsed.error, path);
  return withoutUndefined(parsed.data);
}

/**
 * Reads the transform parameters of a query string. With `preset=<key>` the preset's dsl is the base
 * and each parameter given in the query overrides the preset's one (`?preset=thumb&width=400` is the
 * thumb preset at 400 px wide). A bad value: 400 VALIDATION_FAILED at ['query', <parameter>]; an
 * unknown preset, or one whose stored dsl no longer checks: 400 at ['query', 'preset'].
 */
export async function parseTransform(query: Record<string, unknown>, presetLookup?: PresetLookup): Promise<TransformParams> {
  const parsed = transformQuerySchema.safeParse(query);
  if (!parsed.success) throw refusal(parsed.error, ['query']);
  const { preset, ...explicit } = parsed.data;
  let base: TransformDsl = {};
  if (preset !== undefined) {
    const path = ['query', 'preset'];
    const dsl = presetLookup ? await presetLookup(preset) : null;
    if (dsl === null || dsl === undefined) throw new AppError('VALIDATION_FAILED', `No transform preset is keyed "${preset}"`, { path });
    const checked = transformDslSchema.safeParse(dsl);
    if (!checked.success) throw new AppError('VALIDATION_FAILED', `Transform preset "${preset}" is invalid: ${refusal(checked.error, []).message}`, { path });
    base = checked.data;
  }
  return normalizeTransform({ ...withoutUndefined(base), ...withoutUndefined(explicit) });
}

/**
 * Drops what cannot change the output and writes in defaults, so equal renders get equal keys:
 * `fit` only counts when both dimensions are given (default cover; one dimension always keeps the
 * aspect ratio), `focal` only with cover, `quality` gets the format's default and never goes with png.
 */
export function normalizeTransform(dsl: TransformDsl): TransformParams {
  return normalized({ ...dsl, focal: dsl.focal === undefined ? undefined : focalPoint(dsl.focal) });
}

function normalized(params: TransformParams): TransformParams {
  const both = params.width !== undefined && params.height !== undefined;
  const fit = both ? (params.fit ?? 'cover') : undefined;
  const focal = fit === 'cover' && params.focal !== undefined ? roundedFocal(params.focal) : undefined;
  const quality = params.format === 'png' ? undefined : (params.quality ?? (params.format ? DEFAULT_QUALITY[params.format] : undefined));
  return withoutUndefined({ width: params.width, height: params.height, format: params.format, quality, fit, focal });
}

/** The output format of a source: its own when it is one of the four, else webp. */
export function outputFormatOf(sourceFormat: string | undefined): TransformFormat {
  const known = Object.entries(TRANSFORM_CONTENT_TYPES).find(([format, contentType]) => sourceFormat === format || sourceFormat === contentType);
  return known ? (known[0] as TransformFormat) : FALLBACK_FORMAT;
}

/** Writes in the output format (given, else the source's by its content type, else webp) and its default quality. */
export function resolveOutputFormat(params: TransformParams, sourceContentType: string | undefined): ResolvedTransform {
  const format = params.format ?? outputFormatOf(sourceContentType?.split(';')[0]?.trim().toLowerCase());
  return normalized({ ...params, format }) as ResolvedTransform;
}

const DERIVATIVES = '.derivatives';

/**
 * Where a derivative of `objectKey` is stored: `<objectKey>.derivatives/<sha256>.<format>` beside the
 * original, the hash over the normalized parameters and `sourceVersion` (the original's ETag or
 * content hash: a replaced original never serves an old derivative). A key that would pass the object
 * key limit goes to `.derivatives/<sha256 of objectKey>/<sha256>.<format>` instead.
 */
export function derivativeKey(objectKey: string, params: ResolvedTransform, sourceVersion?: string): string {
  const resolved = resolveOutputFormat(params, undefined);
  const canonical = JSON.stringify({ rendering: RENDERING_VERSION, objectKey, sourceVersion: sourceVersion ?? null, params: resolved });
  const name = `${sha256(canonical)}.${resolved.format}`;
  const beside = `${objectKey}${DERIVATIVES}/${name}`;
  return beside.length <= MAX_OBJECT_KEY_LENGTH ? beside : `${DERIVATIVES}/${sha256(objectKey)}/${name}`;
}

/** The folder of `objectKey`'s derivatives beside it (long keys' derivatives, under `.derivatives/<hash>/`, stay: documented). */
export function derivativeFolder(objectKey: string): string {
  return `${objectKey}${DERIVATIVES}`;
}

/** Whether a key is a derivative's: upload routes refuse such keys, so no one writes over a derivative. */
export function isDerivativeKey(key: string): boolean {
  return key.includes(`${DERIVATIVES}/`);
}

function focalPoint(value: string): { x: number; y: number } {
  const [x, y] = value.split(',').map(Number);
  return { x: x!, y: y! };
}

function roundedFocal(focal: { x: number; y: number }): { x: number; y: number } {
  return { x: Number(focal.x.toFixed(FOCAL_DECIMALS)), y: Number(focal.y.toFixed(FOCAL_DECIMALS)) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

