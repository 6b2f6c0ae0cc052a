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

/** A number the service keeps as text (decimal, 64-bit integer): a string or a JSON number, checked by the field's own rules. */
function numberAsText(name: string, description: string): GraphQLScalarType {
  const accepted = (value: unknown) => {
    if (typeof value !== 'string' && typeof value !== 'number') throw new GraphQLError(`${name} must be a string or a number`);
    return value;
  };
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: accepted,
    parseLiteral: (node) => {
      // A literal number keeps its digits as written (9007199254740993 is not a safe JSON number).
      if (node.kind === Kind.STRING || node.kind === Kind.INT || node.kind === Kind.FLOAT) return node.value;
      throw new GraphQLError(`${name} must be a string or a number`);
    },
  });
}

/** A decimal field's value in a write: `"19.90"` keeps every digit, `19.9` is accepted too. */
export const DecimalScalar = numberAsText('Decimal', 'A decimal number written as a string ("19.90", every digit kept) or a number');

/** A 64-bit integer field's value in a write: a decimal string, or a number up to 2^53. */
export const BigIntegerScalar = numberAsText('BigInteger', 'A 64-bit integer written as a decimal string, or a number up to 2^53');
