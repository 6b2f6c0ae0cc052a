// Type tests of the typed item queries (sdk/src/itemTypes.ts) over the fixture's collection types:
// answers narrowed to the fields selected, and every `@ts-expect-error` line below must fail to
// compile (tsc reports an unused directive otherwise). itemTypes.unit.spec.ts runs tsc on this file.
import { expectTypeOf } from 'vitest';
import { createSvcClient } from '../../../sdk/src/index.ts';
import type { SiteCollections } from '../../../sdk/test/fixtures/siteCollections.ts';

const client = createSvcClient<SiteCollections>({ baseUrl: 'http://127.0.0.1:8080', site: 'fixture' });
const articles = client.items('articles');

export async function narrowsAnswers(): Promise<void> {
  const list = await articles.list({
    fields: ['title', 'views', 'author.name'],
    filter: { views: { _gt: 10 }, author: { name: { _starts_with: 'A' } }, _or: [{ featured: { _eq: true } }, { tags: { _null: true } }] },
    sort: ['-views', 'author.name'],
    limit: 10,
  });
  expectTypeOf(list.data[0]!).toEqualTypeOf<{ title: string; views: number | null; author: { name: string } | null }>();

  const whole = await articles.get('an-id');
  expectTypeOf(whole.data.author).toEqualTypeOf<string | null>();
  expectTypeOf(whole.data.comments).toEqualTypeOf<string[]>();
  expectTypeOf(whole.version).toEqualTypeOf<number>();

  const withComments = await articles.list({ fields: ['id', 'comments.body', 'author'] });
  expectTypeOf(withComments.data[0]!).toEqualTypeOf<{ id: string; comments: { body: string }[]; author: string | null }>();

  const authors = await client.items('authors').list({ fields: ['name', 'articles.title'] });
  expectTypeOf(authors.data[0]!.articles).toEqualTypeOf<{ title: string }[]>();

  await articles.update('an-id', { title: 'New', author: 'author-id' }, { ifMatch: 3 });
}

export async function refusesWrongQueries(): Promise<void> {
  // @ts-expect-error a number field takes no _contains
  await articles.list({ filter: { views: { _contains: 'x' } } });
  // @ts-expect-error a string field's _eq takes a string
  await articles.list({ filter: { title: { _eq: 3 } } });
  // @ts-expect-error a boolean field takes no _gt
  await articles.list({ filter: { featured: { _gt: true } } });
  // @ts-expect-error no field of that name
  await articles.list({ filter: { titel: { _eq: 'x' } } });
  // @ts-expect-error no field of that name
  await articles.list({ fields: ['titel'] });
  // @ts-expect-error no such path through the relation
  await articles.list({ fields: ['author.nmae'] });
  // @ts-expect-error sort by a field that does not exist
  await articles.list({ sort: ['-viewz'] });
  // @ts-expect-error no collection of that name
  client.items('nope');
  const list = await articles.list({ fields: ['title'] });
  // @ts-expect-error the answer holds only the fields selected
  void list.data[0]!.views;
  // @ts-expect-error a write takes the field's type
  await articles.create({ views: 'many' });
}
