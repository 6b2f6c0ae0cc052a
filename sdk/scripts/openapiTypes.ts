// The SDK's REST types, rendered by openapi-typescript from the service's OpenAPI document. One
// function for the generator (generate.ts) and the suite's drift check (test/sdk), so both compare
// the very same text.
import openapiTS, { astToString, type OpenAPI3, type SchemaObject } from 'openapi-typescript';

const HEADER = `// Generated from the service's OpenAPI document by sdk/scripts/generate.ts (npm run generate in sdk/).
// Do not edit: the build and the test suite fail when this file and the document differ.
`;

/**
 * Schemas that refer to themselves through an array or a map (`JsonValue`): openapi-typescript writes
 * them as an indexed access on `components`, which TypeScript refuses as circular (TS2502). They
 * become any JSON value, one level deep, which is what they allow.
 */
function withoutSelfReferences(document: OpenAPI3): OpenAPI3 {
  const schemas = document.components?.schemas ?? {};
  const recursive = Object.keys(schemas).filter((name) => JSON.stringify(schemas[name]).includes(`"#/components/schemas/${name}"`));
  if (recursive.length === 0) return document;
  const anyJson = { type: ['string', 'number', 'boolean', 'object', 'array', 'null'], additionalProperties: true } as SchemaObject;
  const replaced = Object.fromEntries(recursive.map((name) => [name, { ...anyJson, description: schemas[name]!.description ?? 'Any JSON value.' } as SchemaObject]));
  return { ...document, components: { ...document.components, schemas: { ...schemas, ...replaced } } };
}

export async function renderOpenApiTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(withoutSelfReferences(document as OpenAPI3), { alphabetize: true });
  return HEADER + astToString(ast);
}

/** Where the generated types live, from the repository's root. */
export const GENERATED_TYPES_PATH = 'sdk/src/generated/openapi.ts';
