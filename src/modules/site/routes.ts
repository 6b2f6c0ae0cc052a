// /site: the active site's configuration. Members read it; site administrators change it.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandCaller } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { siteCommands } from './commands.ts';
import { siteChangesSchema, siteSchema } from './schemas.ts';
import { readSite } from './siteConfiguration.ts';

export async function siteRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/site',
    { config: { site: 'required', access: 'bearer' }, schema: { tags: ['site'], response: { 200: z.object({ data: siteSchema }) } } },
    async (request) => ({ data: await context.database.withSiteReads(request.siteId, (tx) => readSite(tx, request.siteId)) }),
  );

  api.patch(
    '/site',
    {
      config: { site: 'required', access: 'siteAdmin' },
      schema: { tags: ['site'], body: siteChangesSchema, response: { 200: z.object({ data: siteSchema }) } },
    },
    async (request) => ({ data: await context.commands.runValidated(siteCommands.update, request.body, commandCaller(request)) }),
  );
}
