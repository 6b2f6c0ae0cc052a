import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { compileSort } from '../../src/query/compileSort.ts';
import { articleFields } from './fixtures.ts';

describe('compileSort', () => {
  it('orders by field expressions and ends with the id', () => {
    const order = compileSort(
      [
        { field: 'publishedAt', direction: 'desc' },
        { field: 'views', direction: 'asc' },
      ],
      articleFields,
      'i',
    );
    expect(order.text).toBe("(i.data->>'publishedAt') DESC, ((i.data->>'views')::numeric) ASC, i.id ASC");
    expect(order.values).toEqual([]);
  });

  it('keeps an explicit id term instead of adding another', () => {
    expect(compileSort([{ field: 'id', direction: 'desc' }], articleFields, 'i').text).toBe('i.id DESC');
    expect(compileSort([], articleFields, 'x').text).toBe('x.id ASC');
  });

  it('sorts structural columns and JSON paths', () => {
    expect(compileSort([{ field: 'createdAt', direction: 'asc' }], articleFields, 'i').text).toBe('i.created_at ASC, i.id ASC');
    const byRank = compileSort([{ field: 'meta.rank', direction: 'desc' }], articleFields, 'i');
    expect(byRank).toMatchObject({ text: "((i.data->'meta') #> $1::text[]) DESC, i.id ASC", values: [['rank']] });
  });

  it.each(['nope', 'title.x', 'comments', 'meta.a.b.c.d.e.f.g.h.i', 'ti-tle'])('refuses sorting by %s with path sort', (field) => {
    let error: unknown;
    try {
      compileSort([{ field, direction: 'asc' }], articleFields, 'i');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['sort'] });
  });
});
