// The page decider, given events / when command / then events, and the page's input rules (slug,
// layout), with no database.
import { describe, expect, it } from 'vitest';
import { layoutConfigSchema, pageDecider, pageSlugSchema, readingOf, type LayoutBlock } from '../../../domain/delivery/page.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(pageDecider);
const pageId = '0190d6a0-0000-7000-8000-000000000001';
const layout = { blocks: [{ key: 'hero', type: 'hero', props: { title: 'Hi' } }] };
const created = { type: 'page.created', data: { pageId, slug: 'about', title: 'About', layoutConfig: layout } };

/** The path of the first problem zod finds, or null when the value passes. */
function firstProblem(schema: typeof layoutConfigSchema | typeof pageSlugSchema, value: unknown): (string | number)[] | null {
  const result = schema.safeParse(value);
  return result.success ? null : result.error.issues[0]!.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
}

describe('page decider', () => {
  it('creates a page once', () => {
    spec
      .given([])
      .when({ type: 'createPage', pageId, slug: 'about', title: 'About', layoutConfig: null })
      .then([{ type: 'page.created', data: { pageId, slug: 'about', title: 'About', layoutConfig: null } }]);
    spec.given([created]).when({ type: 'createPage', pageId, slug: 'again', title: 'Again', layoutConfig: null }).thenThrows('CONFLICT', 409);
  });

  it('records only what a patch changes, and nothing for a patch that repeats the page', () => {
    spec
      .given([created])
      .when({ type: 'updatePage', changes: { slug: 'about-us', title: 'About', layoutConfig: { blocks: [] } } })
      .then([{ type: 'page.updated', data: { pageId, changes: { slug: 'about-us', layoutConfig: { blocks: [] } } } }]);
    spec.given([created]).when({ type: 'updatePage', changes: { slug: 'about', title: 'About', layoutConfig: layout } }).thenNothing();
    spec.given([created]).when({ type: 'updatePage', changes: {} }).thenNothing();
    spec
      .given([created])
      .when({ type: 'updatePage', changes: { layoutConfig: null } })
      .then([{ type: 'page.updated', data: { pageId, changes: { layoutConfig: null } } }]);
  });

  it('deletes a page with the slug it had, and refuses to change or delete one that is absent or deleted', () => {
    const renamed = { type: 'page.updated', data: { pageId, changes: { slug: 'team' } } };
    const deleted = { type: 'page.deleted' as const, data: { pageId, slug: 'team' } };
    spec.given([created, renamed]).when({ type: 'deletePage' }).then([deleted]);
    spec.given([]).when({ type: 'updatePage', changes: { title: 'X' } }).thenThrows('NOT_FOUND', 404);
    spec.given([]).when({ type: 'deletePage' }).thenThrows('NOT_FOUND', 404);
    spec.given([created, renamed, deleted]).when({ type: 'updatePage', changes: { title: 'X' } }).thenThrows('NOT_FOUND', 404);
    spec.given([created, renamed, deleted]).when({ type: 'deletePage' }).thenThrows('NOT_FOUND', 404);
  });
});

describe('page slug', () => {
  it('takes lowercase parts joined by one /, _ or -, up to 200 characters', () => {
    for (const slug of ['a', 'about', 'blog/2024/spring-launch', 'a_b-c/d', '0', 'x'.repeat(200)]) expect(firstProblem(pageSlugSchema, slug), slug).toBeNull();
    for (const slug of ['', 'Upper', 'a//b', '-a', 'a-', '/a', 'a/', 'a b', 'a--b', 'a.b', 'é', 'x'.repeat(201)]) expect(firstProblem(pageSlugSchema, slug), slug).toEqual([]);
  });
});

describe('layoutConfig', () => {
  const list = { key: 'latest', collection: 'articles', filter: { status: { _eq: 'published' } }, sort: ['-published_at', 'title'], limit: 200, fields: ['title', 'author.*'] };
  const one = { key: 'featured', collection: 'articles', id: 'a1', fields: ['*'] };

  it('takes static blocks, item blocks and list blocks, with free keys for the front end', () => {
    const config = { blocks: [{ key: 'hero', type: 'hero', props: { nested: [1, { deep: true }] } }, one, list], theme: 'dark' };
    expect(layoutConfigSchema.parse(config)).toEqual(config);
    expect(firstProblem(layoutConfigSchema, { blocks: [] })).toBeNull();
  });

  it('says where a layout is wrong', () => {
    const cases: [unknown, (string | number)[]][] = [
      [{}, ['blocks']],
      [{ blocks: {} }, ['blocks']],
      [{ blocks: [{ collection: 'articles' }] }, ['blocks', 0, 'key']],
      [{ blocks: [{ collection: 'articles', id: 'a1' }] }, ['blocks', 0, 'key']],
      [{ blocks: [{ key: 'has space' }] }, ['blocks', 0, 'key']],
      [{ blocks: [{ key: 'a' }, { key: 'a' }] }, ['blocks', 1, 'key']],
      [{ blocks: [{ key: 'a', collection: '1bad' }] }, ['blocks', 0, 'collection']],
      [{ blocks: [{ key: 'a', id: 'a1' }] }, ['blocks', 0, 'id']],
      [{ blocks: [{ key: 'a', filter: {} }] }, ['blocks', 0, 'filter']],
      [{ blocks: [{ ...one, limit: 3 }] }, ['blocks', 0, 'limit']],
      [{ blocks: [{ ...one, sort: ['title'] }] }, ['blocks', 0, 'sort']],
      [{ blocks: [{ ...one, id: 'not an id' }] }, ['blocks', 0, 'id']],
      [{ blocks: [{ ...list, limit: 201 }] }, ['blocks', 0, 'limit']],
      [{ blocks: [{ ...list, limit: 0 }] }, ['blocks', 0, 'limit']],
      [{ blocks: [{ ...list, filter: [] }] }, ['blocks', 0, 'filter']],
      [{ blocks: [{ ...list, fields: ['title', 'a..b'] }] }, ['blocks', 0, 'fields', 1]],
      [{ blocks: [{ ...list, fields: [] }] }, ['blocks', 0, 'fields']],
      [{ blocks: [{ ...list, sort: ['--title'] }] }, ['blocks', 0, 'sort', 0]],
      [{ blocks: Array.from({ length: 51 }, (_, index) => ({ key: `b${index}` })) }, ['blocks']],
      [{ blocks: [{ key: 'big', props: 'x'.repeat(64 * 1024) }] }, []],
    ];
    for (const [config, path] of cases) expect(firstProblem(layoutConfigSchema, config), JSON.stringify(config).slice(0, 200)).toEqual(path);
  });

  it('takes blocks that read nothing without a key, and keeps keys unique among those that have one', () => {
    expect(firstProblem(layoutConfigSchema, { blocks: [{ type: 'hero' }, { type: 'spacer' }, one] })).toBeNull();
    expect(firstProblem(layoutConfigSchema, { blocks: [{ type: 'hero', key: 'featured' }, one] })).toEqual(['blocks', 1, 'key']);
  });

  it('refuses a layout nested deeper than 32 levels', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 40; level += 1) deep = [deep];
    expect(firstProblem(layoutConfigSchema, { blocks: [{ key: 'a', props: deep }] })).toEqual([]);
  });

  it('tells the delivery route what each block reads', () => {
    const parsed = layoutConfigSchema.parse({ blocks: [{ key: 'hero' }, { type: 'divider' }, one, { key: 'all', collection: 'articles' }, list] });
    expect(parsed.blocks.map((block: LayoutBlock) => readingOf(block))).toEqual([
      { kind: 'none' },
      { kind: 'none' },
      { kind: 'item', collection: 'articles', id: 'a1', fields: ['*'] },
      { kind: 'list', collection: 'articles', filter: null, sort: [], limit: null, fields: null },
      { kind: 'list', collection: 'articles', filter: list.filter, sort: list.sort, limit: 200, fields: list.fields },
    ]);
  });
});
