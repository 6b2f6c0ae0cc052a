// Release preview (`X-Svc-Release: <releaseId>` on item reads, docs/publishing.md): the items as they
// would stand once the release is published, read by the content module's own list and get queries
// over `items` with the release's items laid over them. Nothing is written.
import type { FastifyRequest } from 'fastify';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { SiteSchema } from '../../schema/siteSchema.ts';
import { draftOf, header } from '../items/contentHeaders.ts';
import { revisionChanges } from '../items/historyHandlers.ts';
import { findRevisions } from '../items/historyQueries.ts';
import type { ItemSource } from '../items/itemSource.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { isSiteAdmin } from '../../auth/principal.ts';
import { findRelease } from './queries.ts';

export const RELEASE_PREVIEW_HEADER = 'x-svc-release';

/** What a preview needs of the application context. */
export type PreviewContext = Pick<AppContext, 'database' | 'schemas'>;

/**
 * One item of the release as publishing would leave it. `pinned`: `sort` and `data` are the pinned
 * revision's (a replace, as item revert writes); otherwise only the status changes.
 */
interface OverlayRow {
  collection: string;
  id: string;
  status: string;
  pinned: boolean;
  sort: number | null;
  data: Record<string, unknown> | null;
}

/**
 * The item source of a read with `X-Svc-Release`, or null when the request has none. Releases are
 * site-administrator resources: without credentials 401, anyone else 403 (before the release is
 * looked up, so a member learns nothing of which releases exist). A preview is of the live items, so
 * it cannot be combined with `asOf` or `X-Svc-Draft` (400). A value that is not a UUID of a release
 * of this site is 404 NOT_FOUND, as GET /releases/:id answers.
 */
export async function releasePreviewSource(context: PreviewContext, request: FastifyRequest): Promise<ItemSource | null> {
  const value = header(request, RELEASE_PREVIEW_HEADER);
  if (value === undefined) return null;
  const { principal } = request;
  if (principal.kind === 'anonymous') throw errors.unauthenticated();
  if (!isSiteAdmin(principal)) throw errors.forbidden('Only site administrators may preview a release');
  const { asOf } = (request.query ?? {}) as Record<string, unknown>;
  if (asOf !== undefined || draftOf(request)) {
    throw new AppError('VALIDATION_FAILED', 'X-Svc-Release previews the live items: it cannot be combined with asOf or X-Svc-Draft', {
      path: ['headers', RELEASE_PREVIEW_HEADER],
    });
  }
  return previewSource(context, request.siteId, uuidOr404(value.trim(), 'Release'));
}

/** `items` with the release's items as publishing would write them; 404 NOT_FOUND when the site has no such release. */
export async function previewSource(context: PreviewContext, siteId: string, releaseId: string): Promise<ItemSource> {
  const schema = await context.schemas.site(siteId);
  const overlay = await context.database.withSiteReads(siteId, (tx) => releaseOverlay(tx, schema, siteId, releaseId));
  return overlaySource(overlay);
}

/**
 * What publishing writes per release item: the target status, and with a pinned revision that
 * revision's sort and content fields (fields since removed from the collection left out). A pin that
 * does not resolve to a revision of that very item, or an item of a collection the schema no longer
 * has, would fail to publish: it is left out, so the item reads as it is.
 */
async function releaseOverlay(tx: Queryable, schema: SiteSchema, siteId: string, releaseId: string): Promise<OverlayRow[]> {
  const release = await findRelease(tx, siteId, releaseId);
  if (!release) throw errors.notFound('Release not found');
  const pins = release.items.flatMap((item) => (item.revisionId ? [item.revisionId] : []));
  const revisions = new Map((await findRevisions(tx, siteId, pins)).map((revision) => [revision.revisionId, revision]));
  return release.items.flatMap((item): OverlayRow[] => {
    const unpinned = { collection: item.collection, id: item.itemId, status: item.targetStatus, pinned: false, sort: null, data: null };
    if (!item.revisionId) return [unpinned];
    const revision = revisions.get(item.revisionId);
    const collection = schema.collections.get(item.collection);
    if (!revision || !collection || revision.collection !== item.collection || revision.item !== item.itemId) return [];
    // Exactly what the publish's replace write sets, except the status, which is the release's.
    const { status: _revisionStatus, sort, ...content } = revisionChanges(collection, revision.data);
    return [{ ...unpinned, pinned: true, sort: typeof sort === 'number' ? sort : null, data: content }];
  });
}

/**
 * `items` with each row the overlay names (and that is live: publishing leaves a soft-deleted item as
 * it is) carrying the overlay's status, and with a pin its sort and content; the other columns
 * (version, updated_at, …) stay the live item's. One scan of `items` left-joined to the overlay (one
 * bound jsonb parameter): pages in the order of a column the overlay does not change (id, created_at,
 * updated_at) still walk their index, while filters and sorts on status, sort or content fields read
 * the collection (57 ms for a status filter over 200,000 items), as preview is an administrator's
 * occasional read. A UNION ALL of the untouched and the overlaid rows kept the status index but lost
 * the ordered index scans (100–200 ms for any page at 200,000 items).
 */
function overlaySource(overlay: OverlayRow[]): ItemSource {
  return {
    table: sql`(SELECT i.site_id, i.collection, i.id,
                       CASE WHEN o.id IS NULL THEN i.status ELSE o.status END AS status,
                       CASE WHEN o.pinned THEN o.sort ELSE i.sort END AS sort,
                       i.created_at, i.updated_at, i.user_created, i.user_updated, i.deleted_at, i.version,
                       CASE WHEN o.pinned THEN o.data ELSE i.data END AS data
                  FROM items i
                  LEFT JOIN jsonb_to_recordset(${JSON.stringify(overlay)}::jsonb)
                         AS o(collection text, id text, status text, pinned boolean, sort integer, data jsonb)
                    ON o.collection = i.collection AND o.id = i.id AND i.deleted_at IS NULL)`,
  };
}
