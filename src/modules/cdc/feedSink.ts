// The sink port: a broker that a sink subscription's entries are published to (docs/change-feed.md,
// "NATS JetStream sink", "A Kafka sink"). The sink reactor (sinkReactor.ts) reads each
// subscription's entries in feed order as its creator sees them, hands them to the sink of the
// subscription's kind in batches, and moves the subscription's delivered cursor past the entries the
// broker acknowledged. A sink only publishes: it keeps no cursor, and it de-duplicates by
// `SinkMessage.id` (JetStream's Nats-Msg-Id; a Kafka producer's message key and header), so a batch
// published again after a crash reaches a consumer once.
import type { SubscriptionKind } from '../../../domain/changeFeed/subscription.ts';

export interface SinkMessage {
  siteId: string;
  subscriptionId: string;
  /** The subscription's own subject token (nats), or null for the site's default subjects. */
  channel: string | null;
  /** The entry's collection; null for an entry of the site (a release, an erasure). */
  collection: string | null;
  /** The feed type, e.g. `items.update`. */
  type: string;
  /** The entry's cursor as the feed shows it (opaque, per site). */
  cursor: string;
  /** Stable per subscription, replay generation and entry: what the broker de-duplicates on. */
  id: string;
  /** The envelope as JSON text, as GET /cdc/events shows it to the subscription's creator. */
  body: string;
}

export interface PublishResult {
  /** How many messages, from the first, the broker acknowledged (stored, or dropped as a duplicate of one it holds). */
  acknowledged: number;
  /** The broker's position of the last acknowledged message (JetStream's stream sequence), or null when none was. */
  position: number | null;
  /** Why the next one was not, or null when every message was. */
  error: string | null;
}

export interface FeedSink {
  readonly kind: Exclude<SubscriptionKind, 'pull' | 'webhook'>;
  /**
   * Publishes the messages in order and waits for the broker's acknowledgements (many in flight at
   * once). Never throws: a broker that cannot be reached answers `{ acknowledged: 0, position: null, error }`.
   */
  publish(messages: readonly SinkMessage[]): Promise<PublishResult>;
  /**
   * The ids of the messages the broker holds for a subscription's destination after `position` (a
   * position `publish` answered): what a batch published before a crash, or before a failure, left
   * there without its checkpoint. The reactor skips them when it publishes the batch again, so a
   * consumer gets them once even after the broker's duplicate window. Throws when the broker cannot
   * be reached.
   */
  storedAfter(siteId: string, channel: string | null, position: number): Promise<Set<string>>;
  /** Where a subscription's messages go, as a consumer would subscribe (shown with the subscription). */
  destination(siteId: string, channel: string | null): { stream: string; subjects: string };
  close(): Promise<void>;
}
