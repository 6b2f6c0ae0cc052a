// A site's content model read over the API (GET /collections, then each collection's schema), and
// its TypeScript types from it: what `svc types` writes, from a running service.
import type { SvcClient } from './client.ts';
import { renderSiteTypes, type SiteModel } from './siteTypes.ts';

interface SchemaBundle {
  collection: string;
  fields: SiteModel['collections'][number]['fields'];
  relations: SiteModel['relations'];
}

/** The client's site's collections, fields and relations (needs a site administrator: the schema routes are theirs). */
export async function fetchSiteModel(client: Pick<SvcClient, 'api' | 'site'>): Promise<SiteModel> {
  if (client.site === null) throw new Error('The client has no site: set client.site first');
  const { data } = await client.api.GET('/api/v1/collections');
  const names = (data!.data as { name: string }[]).map((collection) => collection.name);
  const bundles = await Promise.all(
    names.map(async (name) => {
      const answer = await client.api.GET('/api/v1/collections/{name}/schema', { params: { path: { name } } });
      return (answer.data as unknown as { data: SchemaBundle }).data;
    }),
  );
  return {
    site: client.site,
    collections: bundles.map((bundle) => ({ name: bundle.collection, fields: bundle.fields })),
    relations: bundles.flatMap((bundle) => bundle.relations),
  };
}

/** The TypeScript types of the client's site, as `svc types --site <id>` writes them. */
export async function siteTypes(client: Pick<SvcClient, 'api' | 'site'>): Promise<string> {
  return renderSiteTypes(await fetchSiteModel(client));
}
