// The site area's command (the command registry, docs/architecture.md): change the active site's
// configuration. Not dangerous: it changes how the site looks and where it is served, never who may
// do what, and it deletes nothing.
import type { SiteConfigChanges } from '../../../domain/sites/siteConfig.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { siteChangesSchema } from './schemas.ts';
import { configureSite } from './siteConfiguration.ts';

const update = defineCommand({
  name: 'site.update',
  description: "Change the site's configuration: name, titles, URL, domain, language, appearance, branding, theme and custom CSS (an empty string clears a field).",
  input: siteChangesSchema,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => configureSite(context, siteId, input as SiteConfigChanges, metadata),
});

export const siteCommands = { update };
