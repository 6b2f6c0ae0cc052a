// The active site's configuration: read from the `sites` registry, changed by one command on the
// site's stream. A domain is one site's: the check runs under a lock on the domain's name, so two
// sites claiming it at once cannot both win.
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { siteDecider } from '../../../domain/sites/site.ts';
import type { SiteConfigChanges } from '../../../domain/sites/siteConfig.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { SiteView } from './schemas.ts';
import { DEPLOYMENT_SCOPE, lockUniqueValue } from '../../runtime/uniqueness.ts';

interface SiteRow {
  id: string;
  name: string;
  display_title: string | null;
  site_url: string | null;
  descriptor: string | null;
  domain: string | null;
  default_language: string;
  default_appearance: SiteView['defaultAppearance'];
  default_save_action: SiteView['defaultSaveAction'];
  branding: SiteView['branding'];
  theme_overrides: SiteView['themeOverrides'];
  custom_css: string | null;
  created_at: Date;
}

function siteOf(row: SiteRow): SiteView {
  return {
    id: row.id,
    name: row.name,
    displayTitle: row.display_title,
    siteUrl: row.site_url,
    descriptor: row.descriptor,
    domain: row.domain,
    defaultLanguage: row.default_language,
    defaultAppearance: row.default_appearance,
    defaultSaveAction: row.default_save_action,
    branding: row.branding,
    themeOverrides: { light: row.theme_overrides.light ?? {}, dark: row.theme_overrides.dark ?? {} },
    customCss: row.custom_css,
    createdAt: row.created_at.toISOString(),
  };
}

export async function readSite(tx: Queryable, siteId: string): Promise<SiteView> {
  const [row] = await tx.query<SiteRow>(sql`SELECT * FROM sites WHERE id = ${siteId} AND deleted_at IS NULL`);
  if (!row) throw new AppError('SITE_NOT_FOUND', `Site ${siteId} not found`);
  return siteOf(row);
}

async function refuseTakenDomain(tx: Queryable, siteId: string, domain: string): Promise<void> {
  // A domain is unique across the deployment's sites: its lock is the deployment's, not one site's.
  await lockUniqueValue(tx, DEPLOYMENT_SCOPE, 'site-domain', domain);
  const [other] = await tx.query<{ id: string }>(sql`SELECT id FROM sites WHERE domain = ${domain} AND id <> ${siteId}`);
  if (other) throw new AppError('DOMAIN_TAKEN', `The domain ${domain} is another site's`, { path: ['body', 'domain'] });
}

export async function configureSite(context: AppContext, siteId: string, changes: SiteConfigChanges, metadata: EventMetadata): Promise<SiteView> {
  await handleCommand(context, {
    siteId,
    streamId: streamId(siteId, 'site', siteId),
    decider: siteDecider,
    command: { type: 'configureSite', siteId, changes },
    metadata,
    lock: true,
    check: async (_state, tx) => {
      if (changes.domain) await refuseTakenDomain(tx, siteId, changes.domain);
    },
  });
  return context.database.withSite(siteId, (tx) => readSite(tx, siteId));
}
