// `svc types --site <id> [--out <file>]`: the TypeScript types of a site's collections, read straight
// from the database and rendered by the SDK's renderer (sdk/src/siteTypes.ts), so the command and
// the SDK's siteTypes(client) write the same text.
import { writeFile } from 'node:fs/promises';
import { renderSiteTypes, type SiteModel } from '../../sdk/src/siteTypes.ts';
import type { Config } from '../config/config.ts';
import { exportCollectionSchema, listCollections } from '../modules/schema/queries.ts';
import { withSiteContext } from './configRun.ts';

export async function runTypes(loadConfig: () => Config, flags: { site: string; out?: string }): Promise<void> {
  const model = await withSiteContext(loadConfig, flags.site, (context) =>
    context.database.withSite(flags.site, async (tx): Promise<SiteModel> => {
      const bundles = [];
      for (const collection of await listCollections(tx, flags.site)) bundles.push(await exportCollectionSchema(tx, flags.site, collection.name));
      return {
        site: flags.site,
        collections: bundles.map((bundle) => ({ name: bundle.collection, fields: bundle.fields })),
        relations: bundles.flatMap((bundle) => bundle.relations),
      };
    }),
  );
  const text = renderSiteTypes(model);
  if (flags.out) await writeFile(flags.out, text);
  else process.stdout.write(text);
}
