// The two custom scalars of the GraphQL schema: JSON (any JSON value, as stored) and DateTime (an
// ISO 8601 string, as REST answers dates and times).
import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node: ValueNode, variables) => valueFromASTUntyped(node, variables ?? undefined),
});

export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO 8601 date, time or date-time, as stored',
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
  parseValue: (value) => {
    if (typeof value !== 'string') throw new GraphQLError('DateTime must be an ISO 8601 string');
    return value;
  },
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return node.value;
  },
});
