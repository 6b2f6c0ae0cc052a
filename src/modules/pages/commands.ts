// The pages area's commands (the command registry, docs/architecture.md): create, update (slug,
// title, layout), delete. Site administrators only, as with /settings.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { createPage, deletePage, updatePage } from './handlers.ts';
import { createPageBody, updatePageBody } from './schemas.ts';

const create = defineCommand({
  name: 'pages.create',
  description: 'Create a page of the page builder: its slug, title and layout.',
  input: createPageBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createPage(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'pages.update',
  description: "Change a page's slug, title or layout (a null layout removes it).",
  input: updatePageBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updatePage(context, siteId, uuidOr404(id, 'Page'), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'pages.delete',
  description: 'Delete a page.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deletePage(context, siteId, uuidOr404(input.id, 'Page'), metadata),
});

export const pageCommands = { create, update, delete: deleteCommand };
