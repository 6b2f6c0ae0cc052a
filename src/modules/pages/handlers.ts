// Page commands: create, update (slug, title, layout), delete. A slug is one page's per site: the
// check runs under a lock on the site's slug, so two writers claiming it at once cannot both win
// (the unique index pages_slug is the last word).
import { randomUUID } from 'node:crypto';
import { pageDecider } from '../../../domain/delivery/page.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { findPage, pageAtSlug } from './queries.ts';
import type { CreatePageBody, PageView, UpdatePageBody } from './schemas.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

export const pageStream = (siteId: string, pageId: string) => streamId(siteId, 'page', pageId);

const slugTaken = (slug: string) => new AppError('CONFLICT', `Another page has the slug "${slug}"`, { path: ['body', 'slug'] });

async function refuseTakenSlug(tx: Queryable, siteId: string, pageId: string, slug: string): Promise<void> {
  await lockUniqueValue(tx, siteId, 'page-slug', slug);
  if ((await pageAtSlug(tx, siteId, slug, pageId)) !== null) throw slugTaken(slug);
}

export async function createPage(context: AppContext, siteId: string, input: CreatePageBody, metadata: EventMetadata): Promise<PageView> {
  const pageId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: pageStream(siteId, pageId),
      decider: pageDecider,
      command: { type: 'createPage', pageId, slug: input.slug, title: input.title, layoutConfig: input.layoutConfig ?? null },
      check: () => refuseTakenSlug(tx, siteId, pageId, input.slug),
      metadata,
    });
    return (await findPage(tx, siteId, pageId))!;
  });
}

export async function updatePage(context: AppContext, siteId: string, pageId: string, changes: UpdatePageBody, metadata: EventMetadata): Promise<PageView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: pageStream(siteId, pageId),
      decider: pageDecider,
      lock: true,
      command: { type: 'updatePage', changes },
      check: async (state) => {
        if (state.status === 'active' && changes.slug !== undefined && changes.slug !== state.slug) await refuseTakenSlug(tx, siteId, pageId, changes.slug);
      },
      metadata,
    });
    const page = await findPage(tx, siteId, pageId);
    if (!page) throw errors.notFound('Page not found');
    return page;
  });
}

export async function deletePage(context: AppContext, siteId: string, pageId: string, metadata: EventMetadata): Promise<void> {
  await handleCommand(context, { siteId, streamId: pageStream(siteId, pageId), decider: pageDecider, command: { type: 'deletePage' }, metadata });
}
