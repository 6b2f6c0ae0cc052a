// @svc-cms/sdk: a typed client of the service (README.md has the five-minute guide).
export {
  createSvcClient,
  type CollectionTypes,
  type SessionTokens,
  type SignedInUser,
  type SvcAuth,
  type SvcClient,
  type SvcClientOptions,
  type UntypedItem,
} from './client.ts';
export { SvcError, type SvcErrorEntry } from './errors.ts';
export type { ConsumeOptions, CursorStore, Feed, FeedEntry } from './feed.ts';
export type { Graphql, GraphqlDocument } from './graphql.ts';
export type { Answered, FieldFilter, FieldPath, Filter, ItemInput, ListQuery, Selected, Shallow, SortKey } from './itemTypes.ts';
export type { ItemListMeta, ItemsResource } from './items.ts';
export type { Realtime, RealtimeChange, RealtimeFilter, RealtimeOptions, RealtimeResync, RealtimeSignal, RealtimeSubscription } from './realtime.ts';
export { retryAfterMs, type RetryOptions } from './retry.ts';
export { fetchSiteModel, siteTypes } from './siteModel.ts';
export { renderSiteTypes, type SiteModel } from './siteTypes.ts';
export { verifyWebhookSignature, type VerifyOptions } from './webhooks.ts';
export type { components, operations, paths } from './generated/openapi.ts';
