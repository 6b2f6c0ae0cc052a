import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { parseFieldSelection } from '../../src/query/parseFieldSelection.ts';
import type { FieldDefinition, FieldMap } from '../../src/query/types.ts';
import { collections, resolveFields } from './fixtures.ts';

/** The fixtures plus an m2a: articles.blocks through articles_blocks (item, collection) to headings, texts and authors. */
const withBlocks = (() => {
  const map = (fields: FieldDefinition[]): FieldMap => new Map(fields.map((field) => [field.field, field]));
  const all = new Map<string, FieldMap>(collections);
  all.set('articles', new Map([...collections.get('articles')!, ['blocks', { field: 'blocks', type: 'string', relation: { kind: 'm2a', relatedCollection: 'articles_blocks', relatedField: 'article' } }]]));
  all.set(
    'articles_blocks',
    map([
      { field: 'article', type: 'string', relation: { kind: 'm2o', relatedCollection: 'articles' } },
      { field: 'item', type: 'string', anyItem: { collectionField: 'collection', allowedCollections: ['headings', 'texts', 'authors'] } },
      { field: 'collection', type: 'string' },
    ]),
  );
  all.set('headings', map([{ field: 'title', type: 'string' }, { field: 'level', type: 'integer' }]));
  all.set('texts', map([{ field: 'title', type: 'string' }, { field: 'body', type: 'text' }]));
  return (collection: string) => all.get(collection);
})();

function refusal(fields: string[]): unknown {
  try {
    parseFieldSelection(fields, 'articles', withBlocks);
  } catch (error) {
    return error;
  }
  throw new Error('expected an AppError');
}

describe('parseFieldSelection', () => {
  it('splits local fields from relations, one level at a time', () => {
    const selection = parseFieldSelection(['title', 'author.name', 'author.age', 'comments.text', 'comments.article.title'], 'articles', resolveFields);
    expect(selection.local).toEqual(['title']);
    expect([...selection.relations.keys()]).toEqual(['author', 'comments']);
    expect(selection.relations.get('author')).toMatchObject({
      kind: 'm2o',
      collection: 'authors',
      relatedField: null,
      idsOnly: false,
      selection: { local: ['name', 'age'] },
    });
    const comments = selection.relations.get('comments');
    expect(comments).toMatchObject({ kind: 'o2m', collection: 'comments', relatedField: 'article', selection: { local: ['text'] } });
    expect(comments?.selection.relations.get('article')).toMatchObject({ collection: 'articles', selection: { local: ['title'] } });
  });

  it('keeps an m2o named alone as its stored id and loads ids for a to-many named alone', () => {
    const selection = parseFieldSelection(['author', 'comments'], 'articles', resolveFields);
    expect(selection.local).toEqual(['author']);
    expect(selection.relations.get('comments')).toMatchObject({ idsOnly: true, selection: { local: ['id'] } });
  });

  it('expands * to the structural keys and stored fields, and rel.* at the next level', () => {
    const selection = parseFieldSelection(['*', 'author.*'], 'articles', resolveFields);
    expect(selection.local).toEqual(expect.arrayContaining(['id', 'status', 'createdAt', 'userUpdated', 'title', 'meta']));
    expect(selection.local).not.toContain('author');
    expect(selection.local).not.toContain('comments');
    expect(selection.relations.get('comments')?.idsOnly).toBe(true);
    expect(selection.relations.get('author')?.selection.local).toEqual(expect.arrayContaining(['id', 'name', 'age', 'meta']));
    expect(parseFieldSelection(null, 'authors', resolveFields).local).toContain('name');
  });

  it.each([['nope'], ['title.length'], ['author.nope'], ['*.title'], ['a-b'], [`${'comments.article.'.repeat(7)}title`]])('refuses %s with path fields', (field) => {
    let error: unknown;
    try {
      parseFieldSelection([field], 'articles', resolveFields);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['fields'] });
  });

  describe('m2a item fields', () => {
    const itemOf = (fields: string[]) => parseFieldSelection(fields, 'articles', withBlocks).relations.get('blocks')!.selection.anyItems.get('item');

    it('keeps the item id when named alone, and applies an unscoped path to every allowed collection that has its field', () => {
      const bare = parseFieldSelection(['blocks.*'], 'articles', withBlocks).relations.get('blocks')!.selection;
      expect(bare.local).toEqual(expect.arrayContaining(['id', 'article', 'item', 'collection']));
      expect(bare.anyItems.size).toBe(0);
      const item = itemOf(['blocks.item.title']);
      expect(item).toMatchObject({ field: 'item', collectionField: 'collection', allowedCollections: ['headings', 'texts', 'authors'] });
      expect([...item!.targets.keys()]).toEqual(['headings', 'texts']);
      expect(item!.targets.get('texts')!.local).toEqual(['title']);
      expect([...itemOf(['blocks.item.*'])!.targets.keys()]).toEqual(['headings', 'texts', 'authors']);
      expect(parseFieldSelection(['blocks.item', 'blocks.item.id'], 'articles', withBlocks).relations.get('blocks')!.selection.local).not.toContain('item');
    });

    it('reads a scoped path in its collection only, together with the unscoped paths', () => {
      const item = itemOf(['blocks.item:headings.level', 'blocks.item:authors.articles.title', 'blocks.item.title']);
      expect(item!.targets.get('headings')!.local).toEqual(['level', 'title']);
      expect(item!.targets.get('texts')!.local).toEqual(['title']);
      expect(item!.targets.get('authors')!.relations.get('articles')).toMatchObject({ kind: 'o2m', selection: { local: ['title'] } });
      expect([...itemOf(['blocks.item:texts.*'])!.targets.keys()]).toEqual(['texts']);
      // Each m2a item is one level: five levels below the top are allowed, a sixth is not (see below).
      expect(itemOf(['blocks.item:authors.articles.blocks.item:authors.name'])!.targets.get('authors')!.relations.get('articles')).toBeDefined();
    });

    it.each([
      [['blocks.item:nope.title'], 'Unknown collection "nope" in "blocks.item:nope"'],
      [['blocks.item:comments.text'], 'does not allow'],
      [['blocks.item:headings'], 'Select fields of "blocks.item:headings"'],
      [['blocks.item.nope'], 'Unknown field "blocks.item.nope"'],
      [['blocks.item:headings.nope'], 'Unknown field "blocks.item:headings.nope"'],
      [['blocks.item.body.x'], 'blocks.item:texts.body'],
      [['title:headings'], 'not the item field of a many-to-any relation'],
      [['blocks.collection:headings.title'], 'not the item field of a many-to-any relation'],
      [['blocks.item:authors.articles.blocks.item:authors.articles.blocks.item:authors.articles.blocks.item:authors.articles.title'], 'nest at most'],
    ])('refuses %j with path fields', (fields, message) => {
      const error = refusal(fields);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['fields'] });
      expect((error as AppError).message).toContain(message);
    });
  });
});
