// GET /admin/field-access-log and POST /admin/sar/export (site administrators); docs/privacy.md
// says what each lists and holds.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { COLLECTION_NAME_PATTERN } from '../../../domain/content/schemaModel.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import type { Principal } from '../../auth/principal.ts';
import { parseFilterParam, type DynamicValueContext } from '../../query/index.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { listFieldAccessLog } from './fieldAccessLog.ts';
import { buildSarExport, type SarSubject } from './sarExport.ts';
import { pageMeta, pageQuery, SITE_ADMIN } from '../../server/routeKit.ts';

const tags = ['privacy'];

/** Exactly one form: `{ userId }`, `{ collection, itemId }` or `{ collection, filter }` (the erasure's form). */
const sarBody = z
  .object({
    userId: uuidSchema.optional(),
    collection: z.string().regex(COLLECTION_NAME_PATTERN, 'a collection name').optional(),
    itemId: z.string().min(1).max(64).optional(),
    filter: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.userId !== undefined) {
      for (const key of ['collection', 'itemId', 'filter'] as const) {
        if (body[key] !== undefined) context.addIssue({ code: 'custom', path: [key], message: 'Give either userId, collection and itemId, or collection and filter' });
      }
      return;
    }
    if (body.collection === undefined) context.addIssue({ code: 'custom', path: ['collection'], message: 'Required without userId' });
    if (body.itemId !== undefined && body.filter !== undefined) {
      context.addIssue({ code: 'custom', path: ['filter'], message: 'Give either itemId or filter' });
    } else if (body.itemId === undefined && body.filter === undefined) {
      context.addIssue({ code: 'custom', path: ['itemId'], message: 'Required without userId or filter' });
    }
  });

function subjectOf(body: z.infer<typeof sarBody>): SarSubject {
  if (body.userId !== undefined) return { userId: body.userId };
  return body.filter !== undefined ? { collection: body.collection!, filter: body.filter } : { collection: body.collection!, itemId: body.itemId! };
}

/** The export's file name: never the filter, which may hold the subject's email. */
function fileNameOf(subject: SarSubject): string {
  const name = 'userId' in subject ? `user-${subject.userId}` : 'filter' in subject ? `${subject.collection}-records` : `${subject.collection}-${subject.itemId}`;
  return `sar-export-${name.replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
}

/** What $NOW and $CURRENT_USER stand for in this request's filter. */
function dynamicValuesOf(principal: Principal): DynamicValueContext {
  const now = new Date();
  return principal.kind === 'user' ? { now, userId: principal.userId, roleId: principal.roleId } : { now, userId: null, roleId: null };
}

export async function privacyAdminRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/admin/field-access-log',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        // `filter` (bracket or JSON form) is read by the query language, against FIELD_ACCESS_LOG_FIELDS.
        querystring: pageQuery.catchall(z.unknown()),
      },
    },
    async (request) => {
      const { limit, page } = request.query;
      const query = { filter: parseFilterParam(request.query), limit, page, dynamic: dynamicValuesOf(request.principal) };
      const result = await context.database.withSiteReads(request.siteId, (tx) => listFieldAccessLog(tx, request.siteId, query));
      return { data: result.entries, meta: pageMeta(result.total, request.query) };
    },
  );

  api.post('/admin/sar/export', { config: SITE_ADMIN, schema: { tags, body: sarBody } }, async (request, reply) => {
    const subject = subjectOf(request.body);
    const sarRequest = { access: await request.access(), principal: request.principal, metadata: request.metadata };
    const document = await buildSarExport(context, sarRequest, subject);
    return reply.header('content-disposition', `attachment; filename="${fileNameOf(subject)}"`).send(document);
  });
}
