// GraphQL names of collections and fields (src/modules/graphql/names.ts). Collection and field names
// the schema accepts today are already valid GraphQL names, so the mapping of other characters is
// checked here rather than over HTTP (graphqlTypes.e2e.spec.ts covers the collisions it can reach).
import { describe, expect, it } from 'vitest';
import { graphqlName, uniqueNames } from '../../../src/modules/graphql/names.ts';

describe('graphqlName', () => {
  it('maps invalid characters to _, a leading digit to a _ prefix and a __ prefix to x__', () => {
    expect(graphqlName('articles')).toBe('articles');
    expect(graphqlName('blog-posts')).toBe('blog_posts');
    expect(graphqlName('a.b c/é')).toBe('a_b_c__');
    expect(graphqlName('2fa')).toBe('_2fa');
    expect(graphqlName('__secret')).toBe('x__secret');
    expect(graphqlName('-x')).toBe('_x');
    expect(graphqlName('--x')).toBe('x__x');
    expect(graphqlName('')).toBe('_');
    for (const original of ['blog-posts', '2fa', '__secret', '-x', '', 'ünïcode', '9-9']) expect(graphqlName(original)).toMatch(/^[_A-Za-z][_0-9A-Za-z]*$/);
  });
});

describe('uniqueNames', () => {
  it('keeps the name for the first original in alphabetical order, gives the others _2, _3… and reports each', () => {
    const warnings: string[] = [];
    const names = uniqueNames(['my_posts', 'my-posts', 'my.posts', 'other'], new Set(), 'Collection', warnings);
    expect(Object.fromEntries(names)).toEqual({ 'my-posts': 'my_posts', 'my.posts': 'my_posts_2', my_posts: 'my_posts_3', other: 'other' });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"my.posts"');
    expect(warnings[0]).toContain('"my_posts_2"');
  });

  it('never hands out a taken name', () => {
    const warnings: string[] = [];
    const names = uniqueNames(['id', 'title'], new Set(['id', 'id_2']), 'Field', warnings);
    expect(Object.fromEntries(names)).toEqual({ id: 'id_3', title: 'title' });
    expect(warnings).toEqual(['Field "id" is exposed as "id_3": "id" is taken']);
  });
});
