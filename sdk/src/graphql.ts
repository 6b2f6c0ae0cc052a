// `client.graphql(document, variables)`: one POST to /api/v1/graphql through the client's pipeline
// (site, credential, refresh, retries). GraphQL answers errors with 200 and an `errors` list: they are
// thrown as a SvcError too, with each error's `extensions.code` and its path in the answer.
import { SvcError, type SvcErrorEntry } from './errors.ts';

/** A document whose result and variables types a code generator attached (graphql-codegen's TypedDocumentString), or plain text. */
export type GraphqlDocument<Result, Variables> = string | (string & { __apiType?: (variables: Variables) => Result });

interface GraphqlAnswer<Result> {
  data?: Result | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

export type Graphql = <Result = Record<string, unknown>, Variables extends Record<string, unknown> = Record<string, unknown>>(
  document: GraphqlDocument<Result, Variables>,
  variables?: Variables,
) => Promise<Result>;

export function createGraphql(send: (request: Request) => Promise<Response>, baseUrl: string): Graphql {
  return async (document, variables) => {
    const request = new Request(`${baseUrl}/api/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': globalThis.crypto.randomUUID() },
      body: JSON.stringify({ query: String(document), ...(variables ? { variables } : {}) }),
    });
    const response = await send(request);
    const answer = (await response.json()) as GraphqlAnswer<never>;
    if (answer.errors?.length) {
      const errors: SvcErrorEntry[] = answer.errors.map((error) => ({
        code: typeof error.extensions?.code === 'string' ? error.extensions.code : 'GRAPHQL_ERROR',
        message: error.message,
        path: error.path ?? [],
        extensions: error.extensions ?? {},
      }));
      throw new SvcError(response.status, errors, request.headers.get('x-request-id')!);
    }
    return answer.data as never;
  };
}
