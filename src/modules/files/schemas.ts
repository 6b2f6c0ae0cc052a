// The shapes of the files and media routes: what they take and answer.
import { z } from 'zod';
import { pageQuery } from '../../server/routeKit.ts';

const tag = z.string().trim().min(1).max(100);
const folder = z.string().trim().min(1).max(500);
export const FILE_KEY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
export const MEDIA_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export const fileSchema = z.object({
  id: z.string(),
  key: z.string(),
  filename: z.string(),
  title: z.string().nullable(),
  type: z.string(),
  size: z.number(),
  tags: z.array(z.string()),
  folder: z.string().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  source: z.enum(['upload', 'media']),
  uploadedBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FileView = z.infer<typeof fileSchema>;

/** A file name as kept and sent back in Content-Disposition: no control characters, no path. */
const filename = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f/\\]+$/, 'A file name has no control characters and no "/" or "\\"');

const mimeType = z.string().trim().min(1).max(255);
/** The declared type as the guard and the signatures read it: lowercased, without parameters. */
export const canonicalContentType = (contentType: string | undefined): string => (contentType ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();

/**
 * `type`, as the file record names it; `contentType` is its older alias. One of them is required, and
 * both given must name the same type.
 */
export const presignBody = z
  .object({ filename, type: mimeType.optional(), contentType: mimeType.optional(), size: z.number().int().min(0).optional() })
  .strict()
  .superRefine(({ type, contentType }, context) => {
    if (type === undefined && contentType === undefined) context.addIssue({ code: 'custom', path: ['type'], message: 'The file\'s type is required (`type`; `contentType` is its alias)' });
    else if (type !== undefined && contentType !== undefined && canonicalContentType(type) !== canonicalContentType(contentType)) {
      context.addIssue({ code: 'custom', path: ['contentType'], message: '`contentType` is an alias of `type`: give one, or the same type in both' });
    }
  });

export const registerFileBody = z
  .object({
    key: z.string().min(1).max(512).regex(FILE_KEY, 'A key is names joined by "/" (letters, digits, ".", "_", "-")'),
    title: z.string().trim().min(1).max(500).nullable().optional(),
    tags: z.array(tag).max(100).optional(),
    folder: folder.nullable().optional(),
    filename: filename.optional(),
  })
  .strict();

export const updateFileBody = z
  .object({ title: z.string().trim().min(1).max(500).nullable().optional(), tags: z.array(tag).max(100).optional(), folder: folder.nullable().optional() })
  .strict();

export const listFilesQuery = pageQuery;

export const presetKey = z.string().regex(/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/, 'A preset key is lowercase letters and digits, joined by "_" or "-"').max(100);
export const presetSchema = z.object({ id: z.string(), key: z.string(), name: z.string(), dsl: z.record(z.string(), z.unknown()), createdAt: z.string(), updatedAt: z.string() });
export type PresetView = z.infer<typeof presetSchema>;
export const createPresetBody = z.object({ key: presetKey, name: z.string().trim().min(1).max(200), dsl: z.record(z.string(), z.unknown()) }).strict();
export const updatePresetBody = z.object({ key: presetKey.optional(), name: z.string().trim().min(1).max(200).optional(), dsl: z.record(z.string(), z.unknown()).optional() }).strict();

export const uploadConfigBody = z
  .object({
    maxBytes: z.number().int().positive().optional(),
    allowedMimeTypes: z.array(z.string().min(1).max(255)).max(500).optional(),
    allowedExtensions: z.array(z.string().min(1).max(32)).max(500).optional(),
    catalogue: z.array(z.string().min(1).max(255)).max(500).optional(),
    /** Re-encode raster originals without their metadata (EXIF, GPS, XMP, ICC); off by default: originals are kept byte for byte. */
    stripMetadata: z.boolean().optional(),
  })
  .strict();

/** The fields of a multipart upload to POST /files besides its one `file` part, checked as the JSON registration checks them. */
export const uploadFormFields = registerFileBody.pick({ title: true, tags: true, folder: true });
/** A file part's name, checked as the presigned URL's `filename`. */
export const uploadFilename = filename;
