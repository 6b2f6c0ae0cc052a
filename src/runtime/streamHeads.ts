// The per-instance cache of stream heads for commands that load only a stream's head (`load: 'head'`,
// items; docs/architecture.md "The path of a command"): the last event this instance appended to a
// stream, remembered once its transaction committed, so that the stream's next command here decides
// without reading the head back (one round trip less). A head may be stale (another instance, or a
// transaction of this one that is not an inSiteTransaction, wrote the stream since): the append's
// version check then refuses the write as a lost race, the stream is forgotten and the command is
// tried again from the log (the handler's retry). At most `maxStreams` heads, least recently used out.
import type { StoredEvent } from '../../domain/shared/events.ts';
import type { Queryable } from '../../infra/postgres/database.ts';

export interface StreamHeads {
  /** The stream's head as this instance last committed it, if it remembers it. */
  get(streamId: string): StoredEvent | undefined;
  /** Forgets the stream's head (a write to it whose commit is not seen here, a lost race). */
  forget(streamId: string): void;
  /**
   * The stream's new head, appended in `tx`: remembered once `tx` commits when it is collected
   * (`collect`, inSiteTransaction), forgotten at once otherwise.
   */
  appended(tx: Queryable, streamId: string, head: StoredEvent): void;
  /** Starts collecting `tx`'s heads; `committed(tx)` remembers them. */
  collect(tx: Queryable): void;
  committed(tx: Queryable): void;
  readonly size: number;
}

export function createStreamHeads(maxStreams = 10_000): StreamHeads {
  const heads = new Map<string, StoredEvent>();
  const collecting = new WeakMap<Queryable, Map<string, StoredEvent>>();

  function remember(streamId: string, head: StoredEvent): void {
    const known = heads.get(streamId);
    // A later head committed first (commits and their callers' continuations may cross): keep it.
    if (known && known.streamPosition > head.streamPosition) return;
    heads.delete(streamId);
    if (heads.size >= maxStreams) heads.delete(heads.keys().next().value!);
    heads.set(streamId, head);
  }

  return {
    get size() {
      return heads.size;
    },
    get(streamId) {
      const head = heads.get(streamId);
      if (head) {
        heads.delete(streamId);
        heads.set(streamId, head);
      }
      return head;
    },
    forget(streamId) {
      heads.delete(streamId);
    },
    appended(tx, streamId, head) {
      heads.delete(streamId);
      collecting.get(tx)?.set(streamId, head);
    },
    collect(tx) {
      collecting.set(tx, new Map());
    },
    committed(tx) {
      const collected = collecting.get(tx);
      if (!collected) return;
      collecting.delete(tx);
      for (const [streamId, head] of collected) remember(streamId, head);
    },
  };
}
