// The depth and cost budgets of one GraphQL operation, checked as validation rules so an
// over-budget query (or subscription) is refused before anything is resolved.
//
// Cost: every field costs 1; a field whose type is a list multiplies the cost of its selection set
// (not its own 1) by its literal pagination argument (limit, first, last, pageSize; the largest if
// several), or by the default list size when the argument is absent or a variable; the multiplier
// is kept between 1 and the max list multiplier. Nested lists multiply. Each alias counts; fragment
// spreads count as their fields at that place. `__typename` is free (cost 0, no depth). Inside
// `__schema` / `__type` every field costs 1 but lists do not multiply and depth is not counted:
// their size is bounded by the schema, not the data, the standard introspection query nests
// `ofType` deeper than 12 by design, and graphql's own MaxIntrospectionDepthRule (in
// specifiedRules) refuses the nested `fields { type { fields … } }` that would blow up.
// @include / @skip are ignored: a field counts as if it were included.
import {
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  getOperationAST,
  isIntrospectionType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { errorCatalogue } from '../../../domain/shared/errorCatalogue.ts';
import type { Config } from '../../config/config.ts';

export interface QueryLimits {
  maxDepth: number;
  maxCost: number;
  defaultListSize: number;
  maxListMultiplier: number;
}

/** What a list field's multiplier needs. */
export type ListLimits = Pick<QueryLimits, 'defaultListSize' | 'maxListMultiplier'>;

export const MAX_DEPTH = 12;

/** The arguments whose literal value says how many elements a list field returns. */
export const PAGINATION_ARGUMENTS: ReadonlySet<string> = new Set(['limit', 'first', 'last', 'pageSize']);

export function queryLimitsFromConfig(
  config: Pick<Config, 'SVC_GQL_MAX_COST' | 'SVC_GQL_DEFAULT_LIST_SIZE' | 'SVC_GQL_MAX_LIST_MULTIPLIER'>,
): QueryLimits {
  return {
    maxDepth: MAX_DEPTH,
    maxCost: config.SVC_GQL_MAX_COST,
    defaultListSize: config.SVC_GQL_DEFAULT_LIST_SIZE,
    maxListMultiplier: config.SVC_GQL_MAX_LIST_MULTIPLIER,
  };
}

/** Refuses each operation whose deepest field path (a top-level field is 1) exceeds maxDepth. */
export function depthLimitRule(limits: QueryLimits): ValidationRule {
  return (context) => {
    const measure = createOperationMeasure(context.getSchema(), (name) => context.getFragment(name), limits);
    return {
      OperationDefinition(operation) {
        if (measure(operation).depth > limits.maxDepth) {
          context.reportError(limitError(`Query exceeds the maximum depth of ${limits.maxDepth}`, operation));
        }
      },
    };
  };
}

/** Refuses each operation whose cost (see the top of this file) exceeds maxCost. */
export function costLimitRule(limits: QueryLimits): ValidationRule {
  return (context) => {
    const measure = createOperationMeasure(context.getSchema(), (name) => context.getFragment(name), limits);
    return {
      OperationDefinition(operation) {
        if (measure(operation).cost > limits.maxCost) {
          context.reportError(limitError(`Query exceeds the maximum cost of ${limits.maxCost}`, operation));
        }
      },
    };
  };
}

/** The cost of one operation of a document (the only one when operationName is undefined). */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  limits: ListLimits,
): number {
  return measureDocumentOperation(schema, document, operationName, limits).cost;
}

/** The depth of one operation of a document (the only one when operationName is undefined). */
export function operationDepth(schema: GraphQLSchema, document: DocumentNode, operationName?: string): number {
  // List sizes do not change the depth.
  return measureDocumentOperation(schema, document, operationName, { defaultListSize: 1, maxListMultiplier: 1 }).depth;
}

interface Measure {
  cost: number;
  depth: number;
}

const NOTHING: Measure = { cost: 0, depth: 0 };

function limitError(message: string, operation: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(message, {
    nodes: operation,
    extensions: { code: 'VALIDATION', status: errorCatalogue.VALIDATION.status },
  });
}

function measureDocumentOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  limits: ListLimits,
): Measure {
  const operation = getOperationAST(document, operationName);
  if (!operation) throw new Error(operationName ? `no operation named ${operationName}` : 'the document must hold exactly one operation');
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return createOperationMeasure(schema, (name) => fragments.get(name), limits)(operation);
}

/**
 * Measures operations of one document. A fragment is measured once (its fields resolve against its
 * own type condition, whatever the place it is spread), so repeated spreads cost no more work than
 * the document's size. Unknown fields, types and fragments, and fragment cycles, count what can be
 * counted: graphql's own rules refuse such documents anyway.
 */
function createOperationMeasure(
  schema: GraphQLSchema,
  fragmentNamed: (name: string) => FragmentDefinitionNode | null | undefined,
  limits: ListLimits,
): (operation: OperationDefinitionNode) => Measure {
  const fragmentMeasures = new Map<string, Measure>();
  const fragmentsInProgress = new Set<string>();

  function selectionSet(node: SelectionSetNode | undefined, parentType: GraphQLNamedType | undefined): Measure {
    let cost = 0;
    let depth = 0;
    for (const selection of node?.selections ?? []) {
      let measure: Measure;
      if (selection.kind === Kind.FIELD) measure = field(selection, parentType);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) measure = fragment(selection.name.value);
      else {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parentType;
        measure = selectionSet(selection.selectionSet, condition);
      }
      cost += measure.cost;
      depth = Math.max(depth, measure.depth);
    }
    return { cost, depth };
  }

  function field(node: FieldNode, parentType: GraphQLNamedType | undefined): Measure {
    const name = node.name.value;
    if (name === '__typename') return NOTHING;
    const definition = fieldDefinition(schema, parentType, name);
    const children = selectionSet(node.selectionSet, definition ? getNamedType(definition.type) : undefined);
    const introspection = name === '__schema' || name === '__type' || (parentType !== undefined && isIntrospectionType(parentType));
    if (introspection) return { cost: 1 + children.cost, depth: 0 };
    const multiplier = definition && isListType(getNullableType(definition.type)) ? listSize(node, limits) : 1;
    return { cost: 1 + multiplier * children.cost, depth: 1 + children.depth };
  }

  function fragment(name: string): Measure {
    const measured = fragmentMeasures.get(name);
    if (measured) return measured;
    const definition = fragmentNamed(name);
    if (!definition || fragmentsInProgress.has(name)) return NOTHING;
    fragmentsInProgress.add(name);
    const measure = selectionSet(definition.selectionSet, schema.getType(definition.typeCondition.name.value));
    fragmentsInProgress.delete(name);
    fragmentMeasures.set(name, measure);
    return measure;
  }

  return (operation) => selectionSet(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined);
}

function fieldDefinition(
  schema: GraphQLSchema,
  parentType: GraphQLNamedType | undefined,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === '__schema' && parentType === schema.getQueryType()) return SchemaMetaFieldDef;
  if (name === '__type' && parentType === schema.getQueryType()) return TypeMetaFieldDef;
  if (isObjectType(parentType) || isInterfaceType(parentType)) return parentType.getFields()[name];
  return undefined;
}

/** The multiplier of a list field: its largest literal pagination argument, else the default. */
function listSize(node: FieldNode, limits: ListLimits): number {
  let size: number | undefined;
  for (const argument of node.arguments ?? []) {
    if (!PAGINATION_ARGUMENTS.has(argument.name.value)) continue;
    const value = argument.value.kind === Kind.INT ? Number.parseInt(argument.value.value, 10) : limits.defaultListSize;
    size = Math.max(size ?? value, value);
  }
  // At least 1 so a list's fields always count once (a resolver refuses a limit below 1 anyway).
  return Math.min(Math.max(size ?? limits.defaultListSize, 1), limits.maxListMultiplier);
}
