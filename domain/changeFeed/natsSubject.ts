// Where a nats subscription publishes (docs/change-feed.md, "NATS JetStream sink"): one subject per
// site and collection under the deployment's root, `<root>.<site>[.<channel>].<collection>`. The site
// comes right after the root, so everything a site's subscriptions publish is under
// `<root>.<site>.>` and no choice of channel reaches another site's subjects. A channel is one token
// of the subscription's own, so two subscriptions of a site never share a subject.
// Pure: the id a message carries for JetStream's de-duplication is built here too.

/** The subject root and stream when the deployment names none. */
export const DEFAULT_NATS_SUBJECT_ROOT = 'svc.feed';
export const DEFAULT_NATS_STREAM = 'SVC_FEED';
/** The token for entries without a collection (releases, erasures): a collection name starts with a letter. */
export const NO_COLLECTION_TOKEN = '_site';

const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `channel` is not one NATS subject token of ours, or null when it is. */
export function natsChannelProblem(channel: string): string | null {
  if (channel.length === 0) return 'must not be empty';
  if (/[*>]/.test(channel)) return 'must not hold a wildcard (* or >): a subscription publishes to concrete subjects';
  if (/\s/.test(channel)) return 'must not hold whitespace';
  if (channel.includes('.')) return 'is one subject token: no dots (the site and the collection are added around it)';
  if (!CHANNEL.test(channel)) return 'is letters, digits, _ and -, at most 64 characters';
  return null;
}

/** The subject an entry of `collection` is published to. */
export function natsSubjectOf(root: string, siteId: string, channel: string | null, collection: string | null): string {
  const tail = collection ?? NO_COLLECTION_TOKEN;
  return channel === null ? `${root}.${siteId}.${tail}` : `${root}.${siteId}.${channel}.${tail}`;
}

/** The subjects of a subscription, as a NATS filter (shown to users: what to consume). */
export function natsSubjectFilterOf(root: string, siteId: string, channel: string | null): string {
  return channel === null ? `${root}.${siteId}.*` : `${root}.${siteId}.${channel}.*`;
}

/**
 * The message id of an entry for JetStream's de-duplication: the entry's cursor (as the feed shows it),
 * qualified by the subscription (one stream holds every subscription's messages, and an id is
 * unique per stream) and its replay generation (a replay publishes again on purpose; a restart
 * republishes the same ids, which the stream drops).
 */
export function natsMessageIdOf(subscriptionId: string, generation: number, cursor: string): string {
  return `${subscriptionId}:${generation}:${cursor}`;
}
