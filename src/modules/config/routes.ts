// Config manifest (site administrators): GET /config/export and POST /config/import (dry-run or apply).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EXPORT_SCOPES, IMPORT_MODES } from '../../../domain/config/manifest.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { configCommands } from './commands.ts';
import { exportManifest } from './exportManifest.ts';
import { importManifest } from './importManifest.ts';
import { withWebhookTools } from './webhookTools.ts';
import { commandCaller, SITE_ADMIN } from '../../server/routeKit.ts';

/** A manifest of 200 collections of 20 fields is about 1.5 MB: the import takes up to this much, whatever SVC_BODY_LIMIT says. */
export const MANIFEST_BODY_LIMIT = 16 * 1024 * 1024;

const flag = z.enum(['true', 'false']).optional().transform((value) => value === 'true');

export async function configRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/config/export',
    { config: SITE_ADMIN, schema: { tags: ['config'], querystring: z.object({ scope: z.enum(EXPORT_SCOPES).default('all') }) } },
    async (request) => ({ data: await context.database.withSite(request.siteId, (tx) => exportManifest(tx, request.siteId, request.query.scope)) }),
  );

  api.post(
    '/config/import',
    {
      config: SITE_ADMIN,
      bodyLimit: Math.max(context.config.SVC_BODY_LIMIT, MANIFEST_BODY_LIMIT),
      schema: { tags: ['config'], querystring: z.object({ mode: z.enum(IMPORT_MODES).default('merge'), dryRun: flag, allowDestructive: flag }) },
    },
    async (request) => {
      const { mode, dryRun, allowDestructive } = request.query;
      if (dryRun) {
        // The plan only: nothing is written.
        const options = { mode, dryRun, allowDestructive };
        return { data: await withWebhookTools(context, (tools) => importManifest(context, tools, request.siteId, request.body, options, request.metadata)) };
      }
      return { data: await context.commands.runValidated(configCommands.import, { manifest: request.body, mode, allowDestructive }, commandCaller(request)) };
    },
  );
}
