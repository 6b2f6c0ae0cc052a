// Layout and template commands (docs/email.md): each checks its content (a layout's one {{content}},
// a template that parses and renders in its layout), the template key's uniqueness and the layout it
// names, then records the whole new content as a new version.
import { randomUUID } from 'node:crypto';
import { layoutDecider, templateDecider, type LayoutContent, type TemplateContent } from '../../../domain/email/emailTemplate.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { isUuid } from '../../../domain/shared/uuid.ts';
import { withoutUndefined } from '../../../domain/shared/withoutUndefined.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';
import { findLayout, findTemplate, templateKeyTaken, templatesUsingLayout } from './queries.ts';
import { checkLayoutSource, checkTemplateSource } from './render.ts';
import type { LayoutView, TemplateBody, TemplatePatch, TemplateView } from './schemas.ts';

const layoutStream = (siteId: string, layoutId: string) => streamId(siteId, 'email-layout', layoutId);
const templateStream = (siteId: string, templateId: string) => streamId(siteId, 'email-template', templateId);
/** Writers of a layout and of the templates that name it queue on one lock: a layout is never deleted under a template being saved. */
const lockLayout = (tx: Queryable, siteId: string, layoutId: string) => lockUniqueValue(tx, siteId, 'email-layout', layoutId);

export async function createLayout(context: AppContext, siteId: string, layout: LayoutContent, metadata: EventMetadata): Promise<LayoutView> {
  checkLayoutSource(layout.html, ['body', 'html']);
  const layoutId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: layoutStream(siteId, layoutId),
      decider: layoutDecider,
      command: { type: 'createLayout', layoutId, layout },
      metadata,
    });
    return (await findLayout(tx, siteId, layoutId))!;
  });
}

export async function updateLayout(
  context: AppContext,
  siteId: string,
  layoutId: string,
  changes: Partial<LayoutContent>,
  metadata: EventMetadata,
): Promise<LayoutView> {
  if (changes.html !== undefined) checkLayoutSource(changes.html, ['body', 'html']);
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockLayout(tx, siteId, layoutId);
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: layoutStream(siteId, layoutId), decider: layoutDecider, metadata });
    const current = opened.state.content;
    if (opened.state.status !== 'active' || !current) throw errors.notFound('Layout not found');
    await opened.decide({ type: 'updateLayout', layout: { ...current, ...withoutUndefined(changes) } });
    return (await findLayout(tx, siteId, layoutId))!;
  });
}

export async function deleteLayout(context: AppContext, siteId: string, layoutId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, async (tx) => {
    await lockLayout(tx, siteId, layoutId);
    const users = await templatesUsingLayout(tx, siteId, layoutId);
    if (users.length > 0) {
      throw new AppError('CONFLICT', `The layout is used by templates (${users.join(', ')}): change or delete them first`, {
        path: ['params', 'id'],
        extensions: { templates: users },
      });
    }
    await handleCommandIn(tx, context.projections, { siteId, streamId: layoutStream(siteId, layoutId), decider: layoutDecider, command: { type: 'deleteLayout' }, metadata });
  });
}

/** Checks a template's whole content in the transaction: its key is free, its layout exists (and is locked), it renders. */
async function assertTemplate(tx: Queryable, siteId: string, templateId: string | null, template: TemplateContent): Promise<void> {
  if (template.html === null && template.text === null) throw new AppError('VALIDATION_FAILED', 'A template needs html or text', { path: ['body', 'html'] });
  await lockUniqueValue(tx, siteId, 'email-template-key', template.key);
  if (await templateKeyTaken(tx, siteId, template.key, templateId)) {
    throw new AppError('CONFLICT', 'A template with this key already exists', { path: ['body', 'key'] });
  }
  let layoutHtml: string | null = null;
  if (template.layoutId !== null) {
    const unknown = new AppError('VALIDATION_FAILED', 'No layout with this id', { path: ['body', 'layoutId'] });
    if (!isUuid(template.layoutId)) throw unknown;
    await lockLayout(tx, siteId, template.layoutId);
    const layout = await findLayout(tx, siteId, template.layoutId);
    if (!layout) throw unknown;
    layoutHtml = layout.html;
  }
  await checkTemplateSource(template, layoutHtml);
}

export async function createTemplate(context: AppContext, siteId: string, input: TemplateBody, metadata: EventMetadata): Promise<TemplateView> {
  const templateId = randomUUID();
  const template: TemplateContent = {
    key: input.key,
    subject: input.subject,
    html: input.html ?? null,
    text: input.text ?? null,
    layoutId: input.layoutId ?? null,
    category: input.category ?? 'transactional',
    variables: [...new Set(input.variables ?? [])],
  };
  return inSiteTransaction(context, siteId, async (tx) => {
    await assertTemplate(tx, siteId, null, template);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: templateStream(siteId, templateId),
      decider: templateDecider,
      command: { type: 'createTemplate', templateId, template },
      metadata,
    });
    return (await findTemplate(tx, siteId, templateId))!;
  });
}

export async function updateTemplate(context: AppContext, siteId: string, templateId: string, changes: TemplatePatch, metadata: EventMetadata): Promise<TemplateView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    // Opened under the stream's lock: the change applies to the content as it is now, never to a stale read.
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: templateStream(siteId, templateId), decider: templateDecider, metadata, lock: true });
    const current = opened.state.content;
    if (opened.state.status !== 'active' || !current) throw errors.notFound('Template not found');
    const template: TemplateContent = {
      ...current,
      ...withoutUndefined(changes),
      variables: changes.variables !== undefined ? [...new Set(changes.variables)] : current.variables,
    };
    await assertTemplate(tx, siteId, templateId, template);
    await opened.decide({ type: 'updateTemplate', template });
    return (await findTemplate(tx, siteId, templateId))!;
  });
}

export async function deleteTemplate(context: AppContext, siteId: string, templateId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, (tx) =>
    handleCommandIn(tx, context.projections, {
      siteId,
      streamId: templateStream(siteId, templateId),
      decider: templateDecider,
      command: { type: 'deleteTemplate' },
      metadata,
    }),
  );
}
