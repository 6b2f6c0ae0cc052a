// /email (site administrators): capabilities, layouts, templates with versions and previews, sending,
// the sends' outcomes and the suppression list (docs/email.md). The public unsubscribe routes are in
// unsubscribeRoutes.ts.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EMAIL_CATEGORIES, RECIPIENT_STATUSES } from '../../../domain/email/events.ts';
import { errors } from '../../../domain/shared/appError.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { commandCaller, pageMeta, pageMetaSchema, pageQuery, SITE_ADMIN, uuidOr404 } from '../../server/routeKit.ts';
import { addressSchema } from './addresses.ts';
import { emailCommands, unsuppressInput } from './commands.ts';
import type { EmailRuntime } from './emailRuntime.ts';
import {
  findLayout,
  findMessage,
  findTemplate,
  findTemplateByKey,
  findTemplateVersion,
  listLayouts,
  listMessages,
  listRecipients,
  listSuppressions,
  listTemplates,
  listTemplateVersions,
} from './queries.ts';
import { assertVariables, renderEmail } from './render.ts';
import {
  capabilitiesSchema,
  layoutBody,
  layoutPatchBody,
  layoutSchema,
  messageSchema,
  previewBody,
  recipientSchema,
  renderedSchema,
  SEND_STATUSES,
  sendBody,
  suppressionBody,
  suppressionSchema,
  templateBody,
  templatePatchBody,
  templateSchema,
  templateVersionSchema,
  testSendBody,
  type MessageView,
  type SuppressionView,
} from './schemas.ts';

const tags = ['email'];
const idParams = z.object({ id: z.string() });
const FEATURES = ['layouts', 'templates', 'versions', 'marketing', 'one-click-unsubscribe', 'suppressions', 'delivery-status'];

export async function emailRoutes(app: FastifyInstance, { context }: ServerDeps, runtime: EmailRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const inSite = <T>(siteId: string, read: Parameters<typeof context.database.withSite<T>>[1]) => context.database.withSite<T>(siteId, read);

  api.get('/email/capabilities', { config: SITE_ADMIN, schema: { tags, response: { 200: z.object({ data: capabilitiesSchema }) } } }, async () => ({
    data: {
      configured: runtime.mailer !== null,
      transport: runtime.mailer ? ('smtp' as const) : null,
      from: runtime.mailer?.from ?? null,
      features: FEATURES,
    },
  }));

  // Layouts
  api.get(
    '/email/layouts',
    { config: SITE_ADMIN, schema: { tags, querystring: pageQuery, response: { 200: z.object({ data: z.array(layoutSchema), meta: pageMetaSchema }) } } },
    async (request) => {
      const { layouts, total } = await inSite(request.siteId, (tx) => listLayouts(tx, request.siteId, request.query));
      return { data: layouts, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/email/layouts', { config: SITE_ADMIN, schema: { tags, body: layoutBody, response: { 201: z.object({ data: layoutSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(emailCommands.createLayout, request.body, commandCaller(request)) }),
  );
  api.get('/email/layouts/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: layoutSchema }) } } }, async (request) => {
    const layout = await inSite(request.siteId, (tx) => findLayout(tx, request.siteId, uuidOr404(request.params.id, 'Layout')));
    if (!layout) throw errors.notFound('Layout not found');
    return { data: layout };
  });
  api.patch(
    '/email/layouts/:id',
    { config: SITE_ADMIN, schema: { tags, params: idParams, body: layoutPatchBody, response: { 200: z.object({ data: layoutSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(emailCommands.updateLayout, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );
  api.delete('/email/layouts/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(emailCommands.deleteLayout, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });

  // Templates
  api.get(
    '/email/templates',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        querystring: pageQuery.extend({ category: z.enum(EMAIL_CATEGORIES).optional() }),
        response: { 200: z.object({ data: z.array(templateSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { templates, total } = await inSite(request.siteId, (tx) => listTemplates(tx, request.siteId, request.query));
      return { data: templates, meta: pageMeta(total, request.query) };
    },
  );
  api.post('/email/templates', { config: SITE_ADMIN, schema: { tags, body: templateBody, response: { 201: z.object({ data: templateSchema }) } } }, async (request, reply) =>
    reply.status(201).send({ data: await context.commands.runValidated(emailCommands.createTemplate, request.body, commandCaller(request)) }),
  );
  api.get('/email/templates/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: templateSchema }) } } }, async (request) => {
    const template = await inSite(request.siteId, (tx) => findTemplate(tx, request.siteId, uuidOr404(request.params.id, 'Template')));
    if (!template) throw errors.notFound('Template not found');
    return { data: template };
  });
  api.patch(
    '/email/templates/:id',
    { config: SITE_ADMIN, schema: { tags, params: idParams, body: templatePatchBody, response: { 200: z.object({ data: templateSchema }) } } },
    async (request) => ({
      data: await context.commands.runValidated(emailCommands.updateTemplate, { ...request.body, id: request.params.id }, commandCaller(request)),
    }),
  );
  api.delete('/email/templates/:id', { config: SITE_ADMIN, schema: { tags, params: idParams } }, async (request, reply) => {
    await context.commands.runValidated(emailCommands.deleteTemplate, { id: request.params.id }, commandCaller(request));
    return reply.status(204).send();
  });
  api.get(
    '/email/templates/:id/versions',
    {
      config: SITE_ADMIN,
      schema: { tags, params: idParams, querystring: pageQuery, response: { 200: z.object({ data: z.array(templateVersionSchema), meta: pageMetaSchema }) } },
    },
    async (request) => {
      const templateId = uuidOr404(request.params.id, 'Template');
      const { versions, total } = await inSite(request.siteId, (tx) => listTemplateVersions(tx, request.siteId, templateId, request.query));
      if (total === 0) throw errors.notFound('Template not found');
      return { data: versions, meta: pageMeta(total, request.query) };
    },
  );
  api.post(
    '/email/templates/:key/preview',
    {
      config: SITE_ADMIN,
      schema: { tags, params: z.object({ key: z.string() }), body: previewBody, response: { 200: z.object({ data: renderedSchema }) } },
    },
    async (request) => {
      const { siteId } = request;
      const variables = request.body.variables ?? {};
      const source = await inSite(siteId, async (tx) => {
        const template = await findTemplateByKey(tx, siteId, request.params.key);
        if (!template) return null;
        const version = request.body.version ?? template.version;
        const content = version === template.version ? template : await findTemplateVersion(tx, siteId, template.id, version);
        if (!content) throw errors.notFound(`Template "${template.key}" has no version ${version}`);
        const layout = content.layoutId ? await findLayout(tx, siteId, content.layoutId) : null;
        return { content, layoutHtml: layout?.html ?? null };
      });
      if (!source) throw errors.notFound('Template not found');
      assertVariables(source.content.variables, variables);
      const rendered = await renderEmail(source.content, source.layoutHtml, { email: 'recipient@example.com', unsubscribeUrl: runtime.unsubscribeUrl('preview'), ...variables }, () => [
        'body',
        'variables',
      ]);
      return { data: { ...rendered, version: source.content.version } };
    },
  );

  // Sending
  api.post(
    '/email/send',
    { config: SITE_ADMIN, schema: { tags, body: sendBody, response: { 200: z.object({ data: messageSchema }), 202: z.object({ data: messageSchema }) } } },
    async (request, reply) => {
      const { message, queued } = await context.commands.run<{ message: MessageView; queued: boolean }>('email.send', request.body, commandCaller(request));
      return reply.status(queued ? 202 : 200).send({ data: message });
    },
  );
  api.post('/email/test', { config: SITE_ADMIN, schema: { tags, body: testSendBody.nullish(), response: { 200: z.object({ data: messageSchema }) } } }, async (request) => ({
    data: await context.commands.run<MessageView>('email.sendTest', request.body ?? {}, commandCaller(request)),
  }));
  api.get(
    '/email/messages',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        querystring: pageQuery.extend({ status: z.enum(SEND_STATUSES).optional(), category: z.enum(EMAIL_CATEGORIES).optional() }),
        response: { 200: z.object({ data: z.array(messageSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { messages, total } = await inSite(request.siteId, (tx) => listMessages(tx, request.siteId, request.query));
      return { data: messages, meta: pageMeta(total, request.query) };
    },
  );
  api.get('/email/messages/:id', { config: SITE_ADMIN, schema: { tags, params: idParams, response: { 200: z.object({ data: messageSchema }) } } }, async (request) => {
    const message = await inSite(request.siteId, (tx) => findMessage(tx, request.siteId, uuidOr404(request.params.id, 'Message')));
    if (!message) throw errors.notFound('Message not found');
    return { data: message };
  });
  api.get(
    '/email/messages/:id/recipients',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        params: idParams,
        querystring: pageQuery.extend({ status: z.enum(RECIPIENT_STATUSES).optional() }),
        response: { 200: z.object({ data: z.array(recipientSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const sendId = uuidOr404(request.params.id, 'Message');
      const result = await inSite(request.siteId, async (tx) =>
        (await findMessage(tx, request.siteId, sendId)) ? listRecipients(tx, request.siteId, sendId, request.query) : null,
      );
      if (!result) throw errors.notFound('Message not found');
      return { data: result.recipients, meta: pageMeta(result.total, request.query) };
    },
  );

  // Suppressions
  api.get(
    '/email/suppressions',
    {
      config: SITE_ADMIN,
      schema: {
        tags,
        querystring: pageQuery.extend({ email: addressSchema.optional() }),
        response: { 200: z.object({ data: z.array(suppressionSchema), meta: pageMetaSchema }) },
      },
    },
    async (request) => {
      const { siteId, query } = request;
      const emailHash = query.email === undefined ? undefined : runtime.keys.recipientHash(siteId, query.email);
      const { suppressions, total } = await inSite(siteId, (tx) => listSuppressions(tx, siteId, { ...query, emailHash }));
      return { data: suppressions, meta: pageMeta(total, query) };
    },
  );
  api.post(
    '/email/suppressions',
    { config: SITE_ADMIN, schema: { tags, body: suppressionBody, response: { 200: z.object({ data: suppressionSchema }), 201: z.object({ data: suppressionSchema }) } } },
    async (request, reply) => {
      const { suppression, created } = await context.commands.run<{ suppression: SuppressionView; created: boolean }>(
        'email.suppress',
        request.body,
        commandCaller(request),
      );
      return reply.status(created ? 201 : 200).send({ data: suppression });
    },
  );
  api.delete('/email/suppressions/:email', { config: SITE_ADMIN, schema: { tags, params: z.object({ email: z.string().max(320) }) } }, async (request, reply) => {
    const email = unsuppressInput.shape.email.safeParse(request.params.email);
    if (!email.success) throw errors.notFound('This address is not suppressed');
    await context.commands.run('email.unsuppress', { email: email.data }, commandCaller(request));
    return reply.status(204).send();
  });
}
