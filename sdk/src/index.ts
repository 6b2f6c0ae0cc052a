// @svc-cms/sdk: a typed client of the service (README.md has the five-minute guide).
export { createSvcClient, type SessionTokens, type SignedInUser, type SvcAuth, type SvcClient, type SvcClientOptions } from './client.ts';
export { SvcError, type SvcErrorEntry } from './errors.ts';
export { retryAfterMs, type RetryOptions } from './retry.ts';
export type { components, operations, paths } from './generated/openapi.ts';
