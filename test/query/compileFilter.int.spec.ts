// The compiled SQL against real PostgreSQL: random typed items and random filters must select exactly
// the items evaluateFilter selects, every predicate must be two-valued, and no valid filter may
// make the SQL fail.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { raw, sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import { compileAggregate, shapeAggregateRow } from '../../src/query/compileAggregate.ts';
import { compileFilter } from '../../src/query/compileFilter.ts';
import { compileSort } from '../../src/query/compileSort.ts';
import { evaluateFilter } from '../../src/query/evaluateFilter.ts';
import type { FilterTree, ItemRecord } from '../../src/query/types.ts';
import { articleFields, compileContext, evaluateContext, NOW } from './fixtures.ts';

const TABLE = 'query_spec_items';
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('databaseUrl') ?? process.env.DATABASE_URL });
  await client.connect();
  await client.query(`CREATE TEMP TABLE ${TABLE} (
    site_id text NOT NULL, collection text NOT NULL, id text NOT NULL, status text, sort integer,
    created_at timestamptz, updated_at timestamptz, user_created text, user_updated text,
    deleted_at timestamptz, version integer NOT NULL DEFAULT 1, data jsonb NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (site_id, collection, id))`);
});

afterAll(async () => {
  await client?.end();
});

// ---------- data ----------

type Stored = { collection: string; site: string; item: ItemRecord };

const STRUCTURAL: Record<string, string> = {
  id: 'id',
  status: 'status',
  sort: 'sort',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  userCreated: 'user_created',
  userUpdated: 'user_updated',
  deletedAt: 'deleted_at',
};

function toRow({ collection, site, item }: Stored): Record<string, unknown> {
  const row: Record<string, unknown> = { site_id: site, collection, version: 1, data: {} };
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    const column = STRUCTURAL[key];
    if (column) row[column] = value;
    else data[key] = value;
  }
  row.data = data;
  return row;
}

async function store(items: Stored[]): Promise<void> {
  await client.query(`TRUNCATE ${TABLE}`);
  await client.query(`INSERT INTO ${TABLE} SELECT * FROM jsonb_populate_recordset(NULL::${TABLE}, $1::jsonb)`, [
    JSON.stringify(items.map(toRow)),
  ]);
}

async function selectIds(filter: SqlFragment, collection = 'articles'): Promise<{ id: string; matched: boolean | null }[]> {
  const query = sql`SELECT i.id, (${filter}) AS matched FROM ${raw(TABLE)} i
    WHERE i.site_id = 's1' AND i.collection = ${collection} AND i.deleted_at IS NULL ORDER BY i.id`;
  const result = await client.query<{ id: string; matched: boolean | null }>(query.text, query.values);
  return result.rows;
}

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '%', '_', '\\', 'é', '😀', ' ', ','), maxLength: 4 });
const isoInstants = [
  '2024-06-01T00:00:00.000Z',
  '2024-06-10T08:30:00.000Z',
  '2024-06-14T12:00:00.000Z',
  '2024-06-15T12:00:00.000Z',
  '2024-07-01T23:59:59.999Z',
];
const instant = fc.constantFrom(...isoInstants);
const day = fc.constantFrom('2024-06-01', '2024-06-10', '2024-06-15', '2024-12-31');
const time = fc.constantFrom('00:00:00', '08:30:00', '12:00:00', '23:59:59');
const decimalText = fc.constantFrom('0', '1.50', '-0.10', '10', '2.5', '9007199254740993', '-1', '1e3');
const jsonScalar = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, 1e21, 2.25),
  fc.constantFrom('a', 'b', 'A', '1', '', 'a%'),
  fc.boolean(),
  fc.constant(null),
);
const jsonKey = fc.constantFrom('a', 'b', 'c', '0');
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    jsonScalar,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(jsonKey, tie('json'), { maxKeys: 3 }),
  ),
}));

/** A content value that may be missing, JSON null, or a value. */
function content<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | null | undefined> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 5, arbitrary: value });
}

const articleIds = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'];
const authorIds = ['a1', 'a2', 'a3', 'a4'];

function article(id: string) {
  return fc.record({
    id: fc.constant(id),
    status: fc.option(fc.constantFrom('draft', 'published', 'Draft'), { nil: null }),
    sort: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null }),
    createdAt: fc.option(instant, { nil: null }),
    userCreated: fc.option(fc.constantFrom('u1', 'u2'), { nil: null }),
    deletedAt: fc.constantFrom(null, null, null, null, '2024-06-01T00:00:00.000Z'),
    title: content(text),
    tags: content(fc.constantFrom('a,b', 'b', '')),
    views: content(fc.integer({ min: -3, max: 3 })),
    rating: content(fc.constantFrom(0.1, 0.5, -2, 1e21, 3)),
    price: content(decimalText),
    big: content(fc.constantFrom('9007199254740993', '9007199254740992', '-5', '0')),
    published: content(fc.boolean()),
    publishedAt: content(instant),
    day: content(day),
    at: content(time),
    meta: content(json),
    gallery: content(fc.array(fc.constantFrom('f1', 'f2'), { maxLength: 2 })),
    author: content(fc.constantFrom(...authorIds, 'zz')),
    headline: content(translations(text)),
    rank: content(translations(fc.integer({ min: -3, max: 3 }))),
  });
}

/** A translatable field's stored map: some languages, a value or JSON null each. */
function translations<T>(value: fc.Arbitrary<T>) {
  return fc.dictionary(fc.constantFrom('fr', 'en', 'de'), fc.option(value, { nil: null, freq: 4 }), { maxKeys: 3 });
}

const author = (id: string) =>
  fc.record({
    id: fc.constant(id),
    deletedAt: fc.constantFrom(null, null, null, '2024-06-01T00:00:00.000Z'),
    name: content(text),
    age: content(fc.integer({ min: 0, max: 5 })),
    meta: content(json),
  });

const comment = (id: string) =>
  fc.record({
    id: fc.constant(id),
    deletedAt: fc.constantFrom(null, null, null, '2024-06-01T00:00:00.000Z'),
    article: content(fc.constantFrom(...articleIds)),
    text: content(text),
    score: content(fc.integer({ min: 0, max: 3 })),
  });

function withoutUndefined(item: Record<string, unknown>): ItemRecord {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined));
}

const dataset = fc
  .record({
    articles: fc.tuple(...articleIds.map(article)).chain((all) => fc.subarray(all, { minLength: 3 })),
    authors: fc.tuple(...authorIds.map(author)).chain((all) => fc.subarray(all)),
    comments: fc.tuple(...['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map(comment)).chain((all) => fc.subarray(all)),
  })
  .map(({ articles, authors, comments }) => {
    const stored: Stored[] = [
      ...articles.map((item) => ({ collection: 'articles', site: 's1', item: withoutUndefined(item) })),
      ...authors.map((item) => ({ collection: 'authors', site: 's1', item: withoutUndefined(item) })),
      ...comments.map((item) => ({ collection: 'comments', site: 's1', item: withoutUndefined(item) })),
      // Another site's authors with the same ids: relational filters must not see them.
      ...authorIds.map((id) => ({ collection: 'authors', site: 's2', item: { id, name: 'a', age: 1 } })),
    ];
    // Items reach both sides through JSON, as they do in the service.
    return JSON.parse(JSON.stringify(stored)) as Stored[];
  });

// ---------- filters ----------

type Leaf = fc.Arbitrary<FilterTree>;

function condition(key: string, operators: Record<string, fc.Arbitrary<unknown>>): Leaf {
  return fc.oneof(...Object.entries(operators).map(([operator, value]) => value.map((v) => ({ [key]: { [operator]: v } }))));
}

function ordered(value: fc.Arbitrary<unknown>, bounds: fc.Arbitrary<unknown> = fc.tuple(value, value)) {
  return {
    _eq: fc.option(value, { nil: null }),
    _neq: fc.option(value, { nil: null }),
    _lt: value,
    _lte: value,
    _gt: value,
    _gte: value,
    _in: fc.array(fc.option(value, { nil: null, freq: 4 }), { maxLength: 3 }),
    _nin: fc.array(fc.option(value, { nil: null, freq: 4 }), { maxLength: 3 }),
    _between: bounds,
    _null: fc.boolean(),
    _nnull: fc.boolean(),
  };
}

const textOperators = (value: fc.Arbitrary<unknown>, bounds?: fc.Arbitrary<unknown>) => ({
  ...ordered(value, bounds),
  _contains: text,
  _icontains: text,
  _starts_with: text,
  _ends_with: text,
});

const jsonStructure = {
  _json_contains: json,
  _has_key: jsonKey,
  _has_any_keys: fc.array(jsonKey, { maxLength: 2 }),
  _has_all_keys: fc.array(jsonKey, { maxLength: 2 }),
};

const dateValue = fc.oneof(
  instant,
  fc.constantFrom('2024-06-10', '2024-06-10T10:30:00+02:00', '2024-06-14T12:00', '$NOW', '$NOW(-1 day)', '$NOW(+2 weeks)', '$NOW(-1 month)'),
);

// Ranges inside JSON compare numbers with numbers and text with text.
const jsonPathOrdered = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, 1e21), fc.constantFrom('a', 'b', 'A', '1', ''));
const jsonPathBounds = fc.oneof(fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })), fc.tuple(text, text));

const articleLeaf: Leaf = fc.oneof(
  condition('title', textOperators(fc.oneof(text, fc.integer({ min: 0, max: 2 })))),
  condition('tags', textOperators(fc.constantFrom('a,b', 'b', 'a'))),
  condition('views', ordered(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('1.5', '-2', '0.0')))),
  condition('rating', ordered(fc.constantFrom(0.1, 0.5, 1e21, 3, '0.10', -2))),
  condition('price', ordered(decimalText)),
  condition('big', ordered(fc.constantFrom('9007199254740993', '9007199254740992', -5, 0))),
  condition('published', { _eq: fc.option(fc.boolean(), { nil: null }), _neq: fc.boolean(), _in: fc.array(fc.option(fc.boolean()), { maxLength: 2 }), _nin: fc.array(fc.boolean(), { maxLength: 2 }), _null: fc.boolean() }),
  condition('publishedAt', ordered(dateValue)),
  condition('day', ordered(fc.oneof(day, fc.constantFrom('2024-06-10T23:00:00-02:00', '$NOW')))),
  condition('at', ordered(fc.oneof(time, fc.constantFrom('08:30', '2024-01-01T12:00:00Z', '$NOW')))),
  condition('meta', { _eq: json, _neq: json, _null: fc.boolean(), _nnull: fc.boolean(), ...jsonStructure }),
  condition('gallery', { _json_contains: fc.constantFrom('f1', ['f2'], []), _has_key: fc.constantFrom('f1', 'f2') }),
  condition('meta.a', {
    ...textOperators(jsonPathOrdered, jsonPathBounds),
    ...jsonStructure,
    _eq: fc.oneof(json, jsonScalar),
    _neq: jsonScalar,
    _in: fc.array(jsonScalar, { maxLength: 3 }),
    _nin: fc.array(jsonScalar, { maxLength: 3 }),
  }),
  condition('meta.a.b', ordered(jsonPathOrdered, jsonPathBounds)),
  condition('meta.0', { _eq: jsonScalar, _gt: fc.integer({ min: -3, max: 3 }), _null: fc.boolean(), _contains: text }),
  condition('headline', textOperators(text)),
  condition('rank', ordered(fc.integer({ min: -3, max: 3 }))),
  condition('headline.en', { _eq: fc.option(text, { nil: null }), _contains: text, _null: fc.boolean(), _gt: text }),
  condition('id', textOperators(fc.constantFrom('p1', 'p2', 'p9'))),
  condition('status', textOperators(fc.constantFrom('draft', 'published', 'D'))),
  condition('sort', ordered(fc.integer({ min: -2, max: 2 }))),
  condition('createdAt', ordered(dateValue)),
  condition('userCreated', ordered(fc.constantFrom('u1', 'u2', '$CURRENT_USER'))),
  condition('author', { _eq: fc.constantFrom('a1', 'a2', 'zz', '$CURRENT_USER'), _null: fc.boolean(), _in: fc.array(fc.constantFrom('a1', 'a3'), { maxLength: 2 }) }),
);

const authorLeaf: Leaf = fc.oneof(
  condition('name', textOperators(text)),
  condition('age', ordered(fc.integer({ min: 0, max: 5 }))),
  condition('meta.b', { _eq: jsonScalar, _gte: fc.integer({ min: -3, max: 3 }), _null: fc.boolean() }),
);

const commentLeaf: Leaf = fc.oneof(
  condition('text', textOperators(text)),
  condition('score', ordered(fc.integer({ min: 0, max: 3 }))),
);

type CollectionName = 'articles' | 'authors' | 'comments';
const leaves: Record<CollectionName, Leaf> = { articles: articleLeaf, authors: authorLeaf, comments: commentLeaf };
const relations: Record<CollectionName, [string, CollectionName][]> = {
  articles: [
    ['author', 'authors'],
    ['comments', 'comments'],
  ],
  authors: [['articles', 'articles']],
  comments: [['article', 'articles']],
};

function filterFor(collection: CollectionName, depth: number): Leaf {
  const leaf = leaves[collection];
  if (depth === 0) return leaf;
  const inner = filterFor(collection, depth - 1);
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }).map((members) => ({ _and: members })) },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }).map((members) => ({ _or: members })) },
    { weight: 1, arbitrary: fc.tuple(leaf, inner).map(([a, b]) => ({ ...b, ...a })) },
    ...relations[collection].map(([field, related]) => ({
      weight: 1,
      arbitrary: filterFor(related, depth - 1).map((nested) => ({ [field]: nested })),
    })),
  );
}

const userId = fc.constantFrom<string | null>('u1', 'u2', null);

// ---------- properties ----------

describe('compileFilter against PostgreSQL', () => {
  it('selects exactly the items evaluateFilter selects, with two-valued predicates', async () => {
    await fc.assert(
      fc.asyncProperty(dataset, fc.array(filterFor('articles', 3), { minLength: 1, maxLength: 4 }), userId, async (stored, filters, user) => {
        await store(stored);
        const visible = stored.filter((entry) => entry.site === 's1' && entry.item.deletedAt == null);
        const relatedItems = (collection: string) => stored.filter((entry) => entry.site === 's1' && entry.collection === collection).map((entry) => entry.item);
        const articles = visible.filter((entry) => entry.collection === 'articles').map((entry) => entry.item);
        for (const filter of filters) {
          const rows = await selectIds(compileFilter(filter, compileContext({ table: raw(TABLE), userId: user })));
          expect(rows.every((row) => row.matched !== null)).toBe(true);
          const fromSql = rows.filter((row) => row.matched).map((row) => row.id);
          const inMemory = articles
            .filter((item) => evaluateFilter(filter, item, evaluateContext({ userId: user, relatedItems })))
            .map((item) => String(item.id))
            .sort();
          expect(fromSql, JSON.stringify(filter)).toEqual(inMemory);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('either refuses an arbitrary filter with a 400 AppError or compiles SQL that runs', async () => {
    const keys = fc.constantFrom('title', 'views', 'meta', 'meta.a', 'author', 'comments', 'nope', '_and', '_or', '_eq', '_in', '_between', '_contains', '_json_contains', 'a.b.c.d.e.f.g.h.i.j');
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { maxDepth: 4, depthSize: 'small' },
        fc.jsonValue({ maxDepth: 2 }),
        fc.dictionary(keys, tie('tree'), { maxKeys: 3 }),
        fc.array(tie('tree'), { maxLength: 3 }),
      ),
    }));
    await store([]);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(keys, tree, { maxKeys: 3 }), async (filter) => {
        let compiled: SqlFragment;
        try {
          compiled = compileFilter(filter, compileContext({ table: raw(TABLE) }));
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect((error as AppError).status).toBe(400);
          return;
        }
        await selectIds(compiled);
      }),
      { numRuns: 200 },
    );
  });
});

describe('compileFilter on hand-picked rows', () => {
  const rows: Stored[] = [
    { collection: 'articles', site: 's1', item: { id: 'p1', title: '50% off_now', views: 5, meta: { a: 1, tags: ['x'] } } },
    { collection: 'articles', site: 's1', item: { id: 'p2', title: '50 percent', views: 10, meta: null } },
    { collection: 'articles', site: 's1', item: { id: 'p3', views: null, meta: { a: 'x' } } },
  ];

  async function ids(filter: FilterTree): Promise<string[]> {
    await store(rows);
    const result = await selectIds(compileFilter(filter, compileContext({ table: raw(TABLE) })));
    return result.filter((row) => row.matched).map((row) => row.id);
  }

  it('matches LIKE wildcards in a value literally', async () => {
    expect(await ids({ title: { _contains: '% off_' } })).toEqual(['p1']);
    expect(await ids({ title: { _contains: '%' } })).toEqual(['p1']);
    expect(await ids({ title: { _starts_with: '50_' } })).toEqual([]);
  });

  it('treats _neq as IS DISTINCT FROM and JSON null as null', async () => {
    expect(await ids({ views: { _neq: 5 } })).toEqual(['p2', 'p3']);
    expect(await ids({ meta: { _null: true } })).toEqual(['p2']);
    expect(await ids({ 'meta.a': { _eq: 1 } })).toEqual(['p1']);
    expect(await ids({ 'meta.tags': { _json_contains: 'x' } })).toEqual(['p1']);
  });
});

describe('compileSort and compileAggregate against PostgreSQL', () => {
  const rows: Stored[] = [
    { collection: 'articles', site: 's1', item: { id: 'p2', title: 'b', views: 10, price: '1.50', author: 'a1' } },
    { collection: 'articles', site: 's1', item: { id: 'p1', title: 'b', views: 9, price: '2.25', author: 'a1' } },
    { collection: 'articles', site: 's1', item: { id: 'p3', title: 'a', views: 100, author: 'a2' } },
  ];

  it('sorts numbers numerically and breaks ties by id', async () => {
    await store(rows);
    const order = compileSort([{ field: 'title', direction: 'desc' }], articleFields, 'i');
    const byTitle = await client.query(`SELECT id FROM ${TABLE} i ORDER BY ${order.text}`, order.values);
    expect(byTitle.rows.map((row: { id: string }) => row.id)).toEqual(['p1', 'p2', 'p3']);
    const byViews = compileSort([{ field: 'views', direction: 'asc' }], articleFields, 'i');
    const numeric = await client.query(`SELECT id FROM ${TABLE} i ORDER BY ${byViews.text}`, byViews.values);
    expect(numeric.rows.map((row: { id: string }) => row.id)).toEqual(['p1', 'p2', 'p3']);
  });

  it('groups and aggregates', async () => {
    await store(rows);
    const { select, groupBy, columns } = compileAggregate({ count: ['*'], sum: ['views', 'price'], max: ['title'] }, ['author'], articleFields, 'i');
    const query = sql`SELECT ${select} FROM ${raw(TABLE)} i GROUP BY ${groupBy ?? sql`()`} ORDER BY 1`;
    const result = await client.query(query.text, query.values);
    expect(result.rows.map((row: Record<string, unknown>) => shapeAggregateRow(row, columns))).toEqual([
      { author: 'a1', count: 2, sum: { views: 19, price: '3.75' }, max: { title: 'b' } },
      { author: 'a2', count: 1, sum: { views: 100, price: null }, max: { title: 'a' } },
    ]);
  });

  it('sorts and groups translated fields by the first language with a value', async () => {
    await store([
      { collection: 'articles', site: 's1', item: { id: 'p1', headline: { en: 'Apple', fr: 'Pomme' }, rank: { en: 1, fr: 30 } } },
      { collection: 'articles', site: 's1', item: { id: 'p2', headline: { en: 'Banana', fr: null }, rank: { en: 20 } } },
      { collection: 'articles', site: 's1', item: { id: 'p3', headline: { fr: 'Pomme' }, rank: { de: 5 } } },
    ]);
    const byRank = compileSort([{ field: 'rank', direction: 'asc' }], articleFields, 'i');
    const ranked = await client.query(`SELECT id FROM ${TABLE} i ORDER BY ${byRank.text}`, byRank.values);
    expect(ranked.rows.map((row: { id: string }) => row.id)).toEqual(['p2', 'p1', 'p3']);
    const { select, groupBy, columns } = compileAggregate({ count: ['*'], sum: ['rank'] }, ['headline'], articleFields, 'i');
    const query = sql`SELECT ${select} FROM ${raw(TABLE)} i GROUP BY ${groupBy!} ORDER BY ${groupBy!}`;
    const result = await client.query(query.text, query.values);
    expect(result.rows.map((row: Record<string, unknown>) => shapeAggregateRow(row, columns))).toEqual([
      { headline: 'Banana', count: 1, sum: { rank: 20 } },
      { headline: 'Pomme', count: 2, sum: { rank: 30 } },
    ]);
  });

  it('evaluates dynamic dates relative to the given clock', () => {
    const filter = { publishedAt: { _gte: '$NOW(-1 day)' } };
    expect(evaluateFilter(filter, { id: 'x', publishedAt: '2024-06-14T12:00:00.000Z' }, evaluateContext())).toBe(true);
    expect(evaluateFilter(filter, { id: 'x', publishedAt: '2024-06-14T11:59:59.999Z' }, evaluateContext({ now: NOW }))).toBe(false);
  });
});
