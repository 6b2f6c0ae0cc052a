// The common case, a POST of a query or mutation answered as JSON, run with graphql-js directly: the
// document parsed once per query text and validated once per (schema, query text), both kept in
// bounded caches, then executed. It answers exactly what yoga would (the same rules, the same error
// mapping) without turning the request into a Fetch Request and the result into a stream.
// Subscriptions, GET and GraphiQL stay with yoga (./routes.ts).
import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { asValidationError } from './errors.ts';
import type { GraphqlContext } from './resolvers.ts';

export interface DirectRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** A JSON body yoga's pipeline is not needed for: `{ query: string, variables?, operationName? }`. */
export function directRequestOf(body: unknown): DirectRequest | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { query, variables, operationName, ...rest } = body as Record<string, unknown>;
  if (typeof query !== 'string' || Object.keys(rest).some((key) => key !== 'extensions')) return null;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  return { query, variables: (variables as Record<string, unknown> | null | undefined) ?? null, operationName: (operationName as string | null | undefined) ?? null };
}

/** A least-recently-used map of at most `max` entries. */
class Bounded<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  remember(key: K, value: V): V {
    this.delete(key);
    if (this.size >= this.max) this.delete(this.keys().next().value!);
    this.set(key, value);
    return value;
  }
}

/** The error a client sees for `error`, keeping where it happened (locations, path) and the spec's code. */
function presented(error: GraphQLError): GraphQLError {
  const mapped = asValidationError(error.originalError ?? error);
  if (mapped === error) return error;
  return new GraphQLError(mapped.message, { nodes: error.nodes ?? null, source: error.source ?? null, positions: error.positions ?? null, path: error.path ?? null, extensions: mapped.extensions });
}

export interface DirectExecutor {
  /** The answer, or null when this request is yoga's (a subscription). */
  run(schema: GraphQLSchema, request: DirectRequest, context: GraphqlContext): Promise<ExecutionResult | null>;
}

export function createDirectExecutor(rules: readonly ValidationRule[], options: { maxDocuments?: number } = {}): DirectExecutor {
  const max = options.maxDocuments ?? 1_000;
  const documents = new Bounded<string, DocumentNode | GraphQLError>(max);
  const validations = new WeakMap<GraphQLSchema, Bounded<string, readonly GraphQLError[]>>();
  const allRules = [...specifiedRules, ...rules];

  function documentOf(query: string): DocumentNode | GraphQLError {
    const cached = documents.get(query);
    if (cached) return cached;
    let parsed: DocumentNode | GraphQLError;
    try {
      parsed = parse(query, { maxTokens: 10_000 });
    } catch (error) {
      parsed = asValidationError(error);
    }
    return documents.remember(query, parsed);
  }

  function validationOf(schema: GraphQLSchema, query: string, document: DocumentNode): readonly GraphQLError[] {
    let bySchema = validations.get(schema);
    if (!bySchema) validations.set(schema, (bySchema = new Bounded(max)));
    return bySchema.get(query) ?? bySchema.remember(query, validate(schema, document, allRules).map(asValidationError));
  }

  return {
    async run(schema, request, context) {
      const document = documentOf(request.query);
      if (document instanceof GraphQLError) return { errors: [document] };
      const operation = getOperationAST(document, request.operationName ?? undefined);
      if (operation?.operation === 'subscription') return null;
      const errors = validationOf(schema, request.query, document);
      if (errors.length > 0) return { errors: [...errors] };
      const result = await execute({
        schema,
        document,
        variableValues: request.variables ?? undefined,
        operationName: request.operationName ?? undefined,
        contextValue: context,
      });
      return result.errors ? { ...result, errors: result.errors.map(presented) } : result;
    },
  };
}
