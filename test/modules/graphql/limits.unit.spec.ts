import { buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import {
  MAX_DEPTH,
  costLimitRule,
  depthLimitRule,
  operationCost,
  operationDepth,
  queryLimitsFromConfig,
  type QueryLimits,
} from '../../../src/modules/graphql/limits.ts';

const schema = buildSchema(`
  type Query {
    articles(limit: Int, offset: Int): [Article!]!
    article_by_id(id: ID!): Article
    latest_comments(last: Int): [Comment!]!
    tags: [String!]!
  }
  type Article { id: ID! title: String author: Author related: Article comments(limit: Int): [Comment!]! }
  type Author { id: ID! name: String articles(first: Int): [Article!]! }
  type Comment { id: ID! body: String author: Author }
  type Subscription { article_changed: Article articles_changed(pageSize: Int): [Article!]! }
`);

const limits: QueryLimits = { maxDepth: MAX_DEPTH, maxCost: 1000, defaultListSize: 20, maxListMultiplier: 100 };

function errorsOf(query: string, queryLimits: QueryLimits = limits) {
  return validate(schema, parse(query), [...specifiedRules, depthLimitRule(queryLimits), costLimitRule(queryLimits)]);
}

function messagesOf(query: string, queryLimits: QueryLimits = limits): string[] {
  return errorsOf(query, queryLimits).map((error) => error.message);
}

const cost = (query: string) => operationCost(schema, parse(query), undefined, limits);

/** A query whose deepest path has `depth` fields: article_by_id, then related…, then id. */
function queryOfDepth(depth: number, leaf = 'id'): string {
  return `{ article_by_id(id: "1") { ${'related { '.repeat(depth - 2)}${leaf}${' }'.repeat(depth - 2)} } }`;
}

describe('depth limit', () => {
  it('runs a query exactly at the maximum depth and refuses one a level deeper', () => {
    expect(operationDepth(schema, parse(queryOfDepth(12)))).toBe(12);
    expect(errorsOf(queryOfDepth(12))).toEqual([]);
    const errors = errorsOf(queryOfDepth(13));
    expect(errors.map((error) => error.message)).toEqual(['Query exceeds the maximum depth of 12']);
    expect(errors[0]!.extensions).toEqual({ code: 'VALIDATION', status: 400 });
  });

  it('counts the fields of named and inline fragments at the place they are spread', () => {
    const deep = `fragment Deep on Article { related { ... on Article { ${'related { '.repeat(9)}id${' }'.repeat(9)} } } }`;
    const atLimit = `{ article_by_id(id: "1") { ...Deep } } ${deep}`;
    expect(operationDepth(schema, parse(atLimit))).toBe(12);
    expect(errorsOf(atLimit)).toEqual([]);
    expect(messagesOf(`{ article_by_id(id: "1") { related { ...Deep } } } ${deep}`)).toEqual(['Query exceeds the maximum depth of 12']);
  });

  it('does not count __typename as a level', () => {
    expect(errorsOf(queryOfDepth(12, 'id __typename'))).toEqual([]);
    expect(errorsOf(`{ article_by_id(id: "1") { ${'related { '.repeat(10)}__typename${' }'.repeat(10)} } }`)).toEqual([]);
  });

  it('checks subscriptions', () => {
    const deep = `subscription { article_changed { ${'related { '.repeat(11)}id${' }'.repeat(11)} } }`;
    expect(messagesOf(deep)).toEqual(['Query exceeds the maximum depth of 12']);
  });
});

describe('cost', () => {
  it('counts 1 per field and multiplies a list field by its literal pagination argument', () => {
    expect(cost('{ article_by_id(id: "1") { id title author { name } } }')).toBe(5);
    expect(cost('{ articles(limit: 5) { id title } }')).toBe(1 + 5 * 2);
    expect(cost('{ tags }')).toBe(1);
  });

  it.each([
    ['limit', '{ articles(limit: 3) { id } }', 1 + 3],
    ['first', '{ article_by_id(id: "1") { author { articles(first: 3) { id } } } }', 1 + 1 + (1 + 3)],
    ['last', '{ latest_comments(last: 3) { id } }', 1 + 3],
    ['pageSize', 'subscription { articles_changed(pageSize: 3) { id } }', 1 + 3],
  ])('reads %s as the pagination argument', (_name, query, expected) => {
    expect(cost(query)).toBe(expected);
  });

  it('clamps a literal at the max list multiplier', () => {
    expect(cost('{ articles(limit: 100) { id } }')).toBe(101);
    expect(cost('{ articles(limit: 5000) { id } }')).toBe(101);
    expect(cost('{ articles(limit: 99999999999999999999) { id } }')).toBe(101);
  });

  it('uses the default list size when the argument is absent or a variable', () => {
    expect(cost('{ articles { id } }')).toBe(1 + 20);
    expect(cost('query ($n: Int) { articles(limit: $n) { id } }')).toBe(1 + 20);
    expect(cost('query ($n: Int = 2) { articles(limit: $n, offset: 40) { id } }')).toBe(1 + 20);
  });

  it('multiplies nested lists', () => {
    expect(cost('{ articles(limit: 10) { comments(limit: 5) { id } } }')).toBe(1 + 10 * (1 + 5));
    expect(cost('{ articles(limit: 10) { comments(limit: 5) { author { articles(first: 2) { id } } } } }')).toBe(
      1 + 10 * (1 + 5 * (1 + 1 + 2)),
    );
  });

  it('runs a query exactly at the maximum cost and refuses one field more', () => {
    const atLimit = '{ articles(limit: 37) { comments(limit: 26) { id } } }';
    expect(cost(atLimit)).toBe(1000);
    expect(errorsOf(atLimit)).toEqual([]);
    const errors = errorsOf('{ tags articles(limit: 37) { comments(limit: 26) { id } } }');
    expect(errors.map((error) => error.message)).toEqual(['Query exceeds the maximum cost of 1000']);
    expect(errors[0]!.extensions).toEqual({ code: 'VALIDATION', status: 400 });
  });

  it('counts each alias of a costly field on its own', () => {
    const aliased = (count: number) =>
      `{ ${Array.from({ length: count }, (_, index) => `a${index}: articles(limit: 100) { id }`).join(' ')} }`;
    expect(cost(aliased(2))).toBe(2 * 101);
    expect(errorsOf(aliased(9))).toEqual([]);
    expect(messagesOf(aliased(10))).toEqual(['Query exceeds the maximum cost of 1000']);
  });

  it('counts named and inline fragments as their fields, each time they are spread', () => {
    const inline = '{ articles(limit: 10) { ... on Article { id title comments(limit: 2) { id } } } }';
    const named = '{ articles(limit: 10) { ...Fields } } fragment Fields on Article { id title comments(limit: 2) { id } }';
    expect(cost(inline)).toBe(1 + 10 * (1 + 1 + (1 + 2)));
    expect(cost(named)).toBe(cost(inline));
    const twice = '{ a: article_by_id(id: "1") { ...Fields } b: article_by_id(id: "2") { ...Fields } } fragment Fields on Article { id title }';
    expect(cost(twice)).toBe(2 * 3);
    const overBudget = '{ articles(limit: 100) { ...Fields } } fragment Fields on Article { id comments(limit: 10) { id } }';
    expect(messagesOf(overBudget)).toEqual(['Query exceeds the maximum cost of 1000']);
  });

  it('checks subscriptions', () => {
    expect(messagesOf('subscription { articles_changed(pageSize: 50) { id comments { id } } }')).toEqual([
      'Query exceeds the maximum cost of 1000',
    ]);
    expect(errorsOf('subscription { articles_changed(pageSize: 50) { id title } }')).toEqual([]);
  });

  it('reports each operation over the limit once', () => {
    const document = `
      query Cheap { articles(limit: 5) { id } }
      query Costly { articles(limit: 100) { comments(limit: 100) { id } } }
      query Deep ${queryOfDepth(13)}`;
    expect(messagesOf(document)).toEqual(['Query exceeds the maximum cost of 1000', 'Query exceeds the maximum depth of 12']);
    expect(operationCost(schema, parse(document), 'Cheap', limits)).toBe(6);
    expect(() => operationCost(schema, parse(document), undefined, limits)).toThrow(/exactly one operation/);
  });

  it('refuses a document whose fragments double at each level without walking every path', () => {
    const levels = 40;
    const fragments = Array.from(
      { length: levels },
      (_, index) => `fragment F${index} on Article { a: related { ...F${index + 1} } b: related { ...F${index + 1} } }`,
    ).join('\n');
    const document = parse(`{ article_by_id(id: "1") { ...F0 } } ${fragments} fragment F${levels} on Article { id }`);
    const started = performance.now();
    const errors = validate(schema, document, [depthLimitRule(limits), costLimitRule(limits)]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(errors.map((error) => error.message)).toEqual([
      'Query exceeds the maximum depth of 12',
      'Query exceeds the maximum cost of 1000',
    ]);
  });

  it('survives fragment cycles, which graphql itself refuses', () => {
    const cyclic = `{ article_by_id(id: "1") { ...A } }
      fragment A on Article { related { ...B } } fragment B on Article { related { ...A } }`;
    expect(messagesOf(cyclic).some((message) => message.startsWith('Cannot spread fragment "A" within itself'))).toBe(true);
  });
});

describe('introspection', () => {
  it('lets GraphiQL introspection through under the default limits', () => {
    expect(errorsOf(getIntrospectionQuery())).toEqual([]);
    const everything = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(errorsOf(everything)).toEqual([]);
  });

  it('counts introspection fields once each, so repeating them by alias is refused', () => {
    expect(cost('{ __type(name: "Article") { name fields { name type { name } } } }')).toBe(6);
    const text = getIntrospectionQuery();
    const fragmentsStart = text.indexOf('fragment');
    const schemaSelection = text.slice(text.indexOf('{') + 1, text.lastIndexOf('}', fragmentsStart));
    const aliases = Array.from({ length: 5 }, (_, index) => `s${index}: ${schemaSelection}`);
    const aliased = `{ ${aliases.join('\n')} } ${text.slice(fragmentsStart)}`;
    expect(operationCost(schema, parse(aliased), undefined, limits)).toBe(5 * cost(text));
    expect(messagesOf(aliased)).toEqual(['Query exceeds the maximum cost of 1000']);
  });

  it('leaves nested introspection to graphql own MaxIntrospectionDepthRule', () => {
    const nested = '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
    expect(messagesOf(nested)).toEqual(['Maximum introspection depth exceeded']);
  });
});

describe('configuration', () => {
  it('reads the limits from the environment, with the spec defaults', () => {
    const secret = { SVC_SECRET: 'x'.repeat(32) };
    expect(queryLimitsFromConfig(loadConfig(secret))).toEqual({ maxDepth: 12, maxCost: 1000, defaultListSize: 20, maxListMultiplier: 100 });
    const set = { ...secret, SVC_GQL_MAX_COST: '500', SVC_GQL_DEFAULT_LIST_SIZE: '10', SVC_GQL_MAX_LIST_MULTIPLIER: '50' };
    expect(queryLimitsFromConfig(loadConfig(set))).toEqual({ maxDepth: 12, maxCost: 500, defaultListSize: 10, maxListMultiplier: 50 });
    expect(() => loadConfig({ ...secret, SVC_GQL_MAX_COST: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...secret, SVC_GQL_DEFAULT_LIST_SIZE: '2.5' })).toThrow(/SVC_GQL_DEFAULT_LIST_SIZE/);
  });
});
