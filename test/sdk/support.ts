// The content model the SDK's typed tests use: authors, their articles (an m2o with an o2m alias
// back), and comments on articles (an o2m declared on articles), with a field of each kind the type
// table maps differently.
import { createCollection, createRelation } from '../support/contentModel.ts';
import type { TestService, TestSite } from '../support/testService.ts';

export async function createSdkModel(service: TestService, site: TestSite): Promise<void> {
  await createCollection(service, site, 'authors', [
    { field: 'name', type: 'string', required: true },
    { field: 'email', type: 'string' },
  ]);
  await createCollection(service, site, 'articles', [
    { field: 'title', type: 'string', required: true },
    { field: 'views', type: 'integer' },
    { field: 'price', type: 'decimal' },
    { field: 'featured', type: 'boolean' },
    { field: 'tags', type: 'csv' },
    { field: 'meta', type: 'json', note: 'Free-form */ settings' },
    { field: 'published_at', type: 'dateTime' },
    { field: 'author', type: 'uuid' },
  ]);
  await createCollection(service, site, 'comments', [
    { field: 'body', type: 'text', required: true },
    { field: 'article', type: 'uuid' },
  ]);
  await createRelation(service, site, { kind: 'm2o', collection: 'articles', field: 'author', relatedCollection: 'authors', relatedField: 'articles' });
  await createRelation(service, site, { kind: 'o2m', collection: 'articles', field: 'comments', relatedCollection: 'comments', relatedField: 'article' });
}
