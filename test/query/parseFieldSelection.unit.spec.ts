import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { parseFieldSelection } from '../../src/query/parseFieldSelection.ts';
import { resolveFields } from './fixtures.ts';

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

  it.each([['nope'], ['title.length'], ['author.nope'], ['*.title'], ['a-b'], ['comments.article.comments.article.comments.article.title']])('refuses %s with path fields', (field) => {
    let error: unknown;
    try {
      parseFieldSelection([field], 'articles', resolveFields);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['fields'] });
  });
});
