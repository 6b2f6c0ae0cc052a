// Helpers of the GraphQL tests: one operation over HTTP (always answered with HTTP 200), as the
// site's administrator or with any token, and the first error's spec code and status.
import { expect } from 'vitest';
import type { TestService, TestSite } from '../../support/testService.ts';

export interface GraphqlErrorView {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; status: number; reason?: string; path?: (string | number)[] };
}

export interface GraphqlAnswer {
  data?: any;
  errors?: GraphqlErrorView[];
}

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphqlCaller {
  (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<GraphqlAnswer>;
}

/** POST /graphql with `token` (null: no credentials) on `site` (null: no X-Svc-Site); the answer is always HTTP 200. */
export async function postGraphql(service: TestService, site: string | null, token: string | null, request: GraphqlRequest, headers: Record<string, string> = {}): Promise<GraphqlAnswer> {
  const response = await service.request('POST', '/graphql', { site, token, body: request, headers });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
  return response.body as GraphqlAnswer;
}

/** A caller of the site's GraphQL endpoint with `token` (the administrator's by default). */
export function graphqlAs(service: TestService, site: TestSite, token: string | null = site.adminToken): GraphqlCaller {
  return (query, variables, headers) => postGraphql(service, site.siteId, token, { query, ...(variables ? { variables } : {}) }, headers);
}

/** The answer's data, failing the test with the errors when there are any. */
export function dataOf(answer: GraphqlAnswer): any {
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data;
}

/** The answer's one error as `{ code, status, message }`, failing the test when there is not exactly one. */
export function errorOf(answer: GraphqlAnswer): { code: string; status: number; message: string; path: unknown } {
  expect(answer.errors, JSON.stringify(answer)).toHaveLength(1);
  const [error] = answer.errors!;
  return { code: error!.extensions.code, status: error!.extensions.status, message: error!.message, path: error!.extensions.path };
}
