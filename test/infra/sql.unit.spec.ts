import { describe, expect, it } from 'vitest';
import { identifier, join, raw, sql } from '../../infra/postgres/sql.ts';

describe('the sql tagged template', () => {
  it('turns every interpolation into a numbered parameter, never into text', () => {
    const name = "Robert'); DROP TABLE events; --";
    const query = sql`SELECT * FROM users WHERE name = ${name} AND age > ${42}`;
    expect(query.text).toBe('SELECT * FROM users WHERE name = $1 AND age > $2');
    expect(query.values).toEqual([name, 42]);
  });

  it('splices nested fragments and renumbers their parameters', () => {
    const condition = sql`a = ${1} AND b = ${2}`;
    const query = sql`SELECT ${'x'} FROM t WHERE ${condition} AND c = ${3}`;
    expect(query.text).toBe('SELECT $1 FROM t WHERE a = $2 AND b = $3 AND c = $4');
    expect(query.values).toEqual(['x', 1, 2, 3]);
  });

  it('joins fragments with a separator, keeping parameters in order', () => {
    const query = sql`SELECT * FROM t WHERE ${join([sql`a = ${'one'}`, sql`b = ${'two'}`, sql`c IS NULL`], ' AND ')} LIMIT ${10}`;
    expect(query.text).toBe('SELECT * FROM t WHERE a = $1 AND b = $2 AND c IS NULL LIMIT $3');
    expect(query.values).toEqual(['one', 'two', 10]);
  });

  it('quotes identifiers, doubling embedded quotes, and splices raw text as is', () => {
    expect(identifier('audit_log').text).toBe('"audit_log"');
    expect(identifier('we"ird').text).toBe('"we""ird"');
    const query = sql`SELECT ${raw('count(*)')} FROM ${identifier('events')}`;
    expect(query).toMatchObject({ text: 'SELECT count(*) FROM "events"', values: [] });
  });

  it('renumbers parameters past $9 correctly', () => {
    const parts = Array.from({ length: 12 }, (_, index) => sql`${index}`);
    const query = sql`VALUES (${join(parts)})`;
    expect(query.text).toBe(`VALUES (${parts.map((_, index) => `$${index + 1}`).join(', ')})`);
    expect(query.values).toEqual(Array.from({ length: 12 }, (_, index) => index));
  });
});
