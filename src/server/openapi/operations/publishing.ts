// Releases, pages, pageviews, public delivery and files (registration, raw media, assets, presets,
// the upload policy).
import { z } from 'zod';
import { fileSchema, presetSchema } from '../../../modules/files/schemas.ts';
import { releaseSummarySchema } from '../../../modules/releases/schemas.ts';
import { pageSchema } from '../../../modules/pages/schemas.ts';
import type { OperationCatalogue } from '../operationEntry.ts';
import { item, noContent, openObject, pageMeta, timestamp } from './shapes.ts';

const releaseErrors = ['ALREADY_PUBLISHED', 'RELEASE_IMMUTABLE', 'ITEM_NOT_FOUND', 'CONFLICT'] as const;
const publicRead =
  'Public: the public role’s permissions apply. Anonymous answers are cached (`Cache-Control: public, s-maxage=60, stale-while-revalidate=300`, a weak `ETag`; ' +
  '`If-None-Match` answers 304); with `Authorization` they are `private, no-store`. A malformed name is the same 404 as a miss.';
const binary = { type: 'string', contentMediaType: 'application/octet-stream' };

export const publishingOperations: OperationCatalogue = {
  'GET /releases': { summary: 'List releases (filter by status)', response: { data: z.array(releaseSummarySchema), meta: pageMeta } },
  'POST /releases': { summary: 'Create a release', unprocessable: true, errors: ['ITEM_NOT_FOUND'] },
  'GET /releases/{id}': { summary: 'One release with its items', response: { data: releaseSummarySchema.extend({ items: z.array(openObject) }) } },
  'PATCH /releases/{id}': { summary: 'Update a release’s meta, items or schedule', unprocessable: true, errors: [...releaseErrors] },
  'DELETE /releases/{id}': { summary: 'Delete a release (its items go with it)', errors: ['RELEASE_IMMUTABLE'], response: noContent('The release is deleted.') },
  'POST /releases/{id}/publish': {
    summary: 'Publish a release now',
    description:
      'Each item goes through the normal update path (editorial gate, validation, permissions, hooks). `all_or_nothing` rolls every item back if one fails; ' +
      '`best_effort` publishes what it can. The outcomes say per item `published`, `skipped` or `failed` with a reason.',
    unprocessable: true,
    errors: ['EMPTY_RELEASE', ...releaseErrors],
  },
  'POST /releases/{id}/revert': { summary: 'Revert a published release’s items', unprocessable: true, errors: [...releaseErrors] },
  'GET /pages': { summary: 'List pages', response: { data: z.array(pageSchema), meta: pageMeta } },
  'POST /pages': { summary: 'Create a page', description: 'Clears a matching negative-cache tombstone at once.', errors: ['CONFLICT'] },
  'GET /pages/{id}': { summary: 'One page', response: { data: pageSchema } },
  'PATCH /pages/{id}': { summary: 'Update a page (slug, title, layout)', errors: ['CONFLICT'] },
  'DELETE /pages/{id}': { summary: 'Delete a page', response: noContent('The page is deleted.') },
  'POST /pageviews/{site_id}/hit': {
    summary: 'Count a pageview (public beacon)',
    description: 'Bots, Do-Not-Track and Global Privacy Control are filtered. Always 204 with an empty body, counted or not.',
    notFound: false,
    response: noContent('Received.'),
  },
  'GET /pageviews/stats': { summary: 'Daily views and unique visitors (`from`, `to`, `path`)' },
  'POST /pageviews/flush': { summary: 'Flush the pageview counters to the database now' },
  'GET /deliver/page/{path}': {
    summary: 'A page hydrated in one round trip',
    description: `\`{path}\` is \`<site_id>/<slug>\`, or the slug alone with \`X-Svc-Site\`. ${publicRead}`,
    errors: ['RATE_LIMITED'],
    response: {
      data: z.object({ id: z.string(), slug: z.string(), title: z.string(), layoutConfig: z.unknown(), updatedAt: timestamp, blocks: z.array(z.unknown()) }),
    },
  },
  'GET /deliver/items/{collection}': {
    summary: 'Public list of a collection’s items',
    description: `${publicRead} Takes the item list parameters; a search is never cached.`,
    errors: ['RATE_LIMITED', 'VALIDATION'],
    response: { data: { type: 'array', items: item }, meta: openObject.optional() },
  },
  'GET /deliver/menu/{key}': {
    summary: 'A menu’s configuration',
    description: publicRead,
    errors: ['RATE_LIMITED'],
    response: { data: z.object({ key: z.string() }).catchall(z.unknown()) },
  },
  'GET /deliver/llms.txt/{site_id}': {
    summary: 'The site’s llms.txt',
    description: publicRead,
    errors: ['RATE_LIMITED'],
    response: { status: 200, contentType: 'text/plain', description: 'The llms.txt text.' },
  },
  'POST /utils/cache/purge': {
    summary: 'Purge the delivery cache by tags or keys',
    description: 'Every tag and key must include the site id.',
    response: { data: z.object({ tags: z.array(z.string()), keys: z.array(z.string()) }) },
  },
  'POST /files/presigned-url': {
    summary: 'A presigned object-storage PUT URL for an upload',
    description: 'The upload guard’s rules (size, MIME type allowlist, extension) are checked first.',
    errors: ['UPLOAD_REJECTED'],
    response: {
      data: z
        .object({ key: z.string(), url: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()).describe('Send these with the PUT (Content-Type, and X-Svc-Site for local storage)'), expiresAt: timestamp })
        .catchall(z.unknown()),
    },
  },
  'POST /files': {
    summary: 'Register an uploaded file, or upload and register one (multipart)',
    description: 'The upload guard checks the bytes: executables, active-content SVGs and mismatched types are refused.',
    errors: ['UPLOAD_REJECTED', 'CONFLICT'],
  },
  'GET /files': { summary: 'List files (filterable)', errors: ['VALIDATION'], response: { data: z.array(fileSchema), meta: pageMeta } },
  'GET /files/{id}': { summary: 'One file’s metadata', response: { data: fileSchema } },
  'PATCH /files/{id}': { summary: 'Update a file’s title, tags or folder', response: { data: fileSchema } },
  'DELETE /files/{id}': { summary: 'Delete a file and its object', response: noContent('The file is deleted.') },
  'GET /uploads/config': {
    summary: 'The upload policy',
    response: { data: z.object({ maxBytes: z.number(), allowedMimeTypes: z.array(z.string()), allowedExtensions: z.array(z.string()), catalogue: z.array(z.unknown()) }).catchall(z.unknown()) },
  },
  'PUT /uploads/config': {
    summary: 'Set the upload policy',
    response: { data: z.object({ maxBytes: z.number(), allowedMimeTypes: z.array(z.string()) }).catchall(z.unknown()) },
  },
  'GET /transform-presets': { summary: 'List image transform presets', response: { data: z.array(presetSchema) } },
  'POST /transform-presets': { summary: 'Create an image transform preset', errors: ['CONFLICT'] },
  'PATCH /transform-presets/{id}': { summary: 'Update an image transform preset', errors: ['CONFLICT'], response: { data: presetSchema } },
  'DELETE /transform-presets/{id}': { summary: 'Delete an image transform preset', response: noContent('The preset is deleted.') },
  'POST /media/{key}': {
    summary: 'Upload raw bytes under a key',
    description: 'The body is the file’s bytes (its `Content-Type` is checked against the bytes by the upload guard).',
    errors: ['UPLOAD_REJECTED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'CONFLICT'],
    response: { status: 201, data: fileSchema },
  },
  'GET /media/{key}': {
    summary: 'Download a media object',
    description: 'As an attachment with `nosniff`. With transform parameters, a 302 to the derivative under /assets.',
    response: { status: 200, contentType: 'application/octet-stream', raw: binary, description: 'The original bytes.' },
  },
  'DELETE /media/{key}': { summary: 'Delete a media object', response: noContent('The object is deleted.') },
  'GET /assets/{id}': {
    summary: 'Serve a file, or an image transformed',
    description: 'Transform parameters: `width`, `height` (at most 5000), `format`, `quality`, `fit`, `focal`, `preset`. Answers 304 to a current `If-None-Match`.',
    response: { status: 200, contentType: 'application/octet-stream', raw: binary, description: 'The bytes.' },
  },
};
