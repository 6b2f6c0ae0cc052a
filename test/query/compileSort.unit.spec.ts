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
    expect(order.text).toBe("(i.data->>'publishedAt') DESC NULLS LAST, ((i.data->>'views')::numeric) ASC, i.id ASC");
    expect(order.values).toEqual([]);
  });

  it('keeps an explicit id term instead of adding another', () => {
    expect(compileSort([{ field: 'id', direction: 'desc' }], articleFields, 'i').text).toBe('i.id DESC');
    expect(compileSort([], articleFields, 'x').text).toBe('x.id ASC');
  });

  it('sorts structural columns and JSON paths', () => {
    expect(compileSort([{ field: 'createdAt', direction: 'asc' }], articleFields, 'i').text).toBe('i.created_at ASC, i.id ASC');
    const byRank = compileSort([{ field: 'meta.rank', direction: 'desc' }], articleFields, 'i');
    expect(byRank).toMatchObject({ text: "NULLIF((i.data->'meta') #> $1::text[], 'null'::jsonb) DESC NULLS LAST, i.id ASC", values: [['rank']] });
  });

  it('puts nulls last in both directions unless a term asks for first, with the clause only where PostgreSQL would not', () => {
    const order = (direction: 'asc' | 'desc', nulls?: 'first' | 'last') => compileSort([{ field: 'views', direction, ...(nulls ? { nulls } : {}) }], articleFields, 'i').text;
    expect(order('asc')).toBe("((i.data->>'views')::numeric) ASC, i.id ASC");
    expect(order('desc')).toBe("((i.data->>'views')::numeric) DESC NULLS LAST, i.id ASC");
    expect(order('asc', 'last')).toBe("((i.data->>'views')::numeric) ASC, i.id ASC");
    expect(order('desc', 'last')).toBe("((i.data->>'views')::numeric) DESC NULLS LAST, i.id ASC");
    expect(order('asc', 'first')).toBe("((i.data->>'views')::numeric) ASC NULLS FIRST, i.id ASC");
    expect(order('desc', 'first')).toBe("((i.data->>'views')::numeric) DESC, i.id ASC");
    expect(compileSort([{ field: 'sort', direction: 'desc' }], articleFields, 'i').text).toBe('i.sort DESC NULLS LAST, i.id ASC');
    expect(compileSort([{ field: 'status', direction: 'asc', nulls: 'first' }], articleFields, 'i').text).toBe('i.status ASC NULLS FIRST, i.id ASC');
  });

  it('writes no NULLS clause for the columns every item has, so their one index serves both directions', () => {
    expect(compileSort([{ field: 'createdAt', direction: 'desc' }], articleFields, 'i').text).toBe('i.created_at DESC, i.id ASC');
    expect(compileSort([{ field: 'updatedAt', direction: 'asc', nulls: 'first' }], articleFields, 'i').text).toBe('i.updated_at ASC, i.id ASC');
    expect(compileSort([{ field: 'id', direction: 'desc', nulls: 'last' }], articleFields, 'i').text).toBe('i.id DESC');
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
