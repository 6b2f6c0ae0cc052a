// The NATS JetStream sink (docs/change-feed.md, "NATS JetStream sink"): publishes a nats
// subscription's entries to `<root>.<site>[.<channel>].<collection>` (domain/changeFeed/natsSubject.ts)
// in one stream it creates or widens when it connects, each with its message id as Nats-Msg-Id, so the
// stream drops a message published again within its duplicate window (a batch republished after a
// crash). One connection per process, opened on first use and reopened after it closed; while the
// server cannot be reached, publishing answers an error and the reactor backs off.
// A batch is published as JetStream's client publishes, minus its cost per message: each message is a
// plain publish whose reply subject (an inbox of the batch, one subscription) receives the stream's
// acknowledgement (PubAck), the ids and the expected stream as the headers js.publish would set, one
// timer for the batch instead of a request, a timer and two errors per message.
import type { Logger } from 'pino';
import {
  AckPolicy,
  connect,
  createInbox,
  DeliverPolicy,
  DiscardPolicy,
  headers,
  nanos,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JsMsg,
  type JetStreamManager,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type NatsError,
} from 'nats';
import { natsSubjectFilterOf, natsSubjectOf } from '../../../domain/changeFeed/natsSubject.ts';
import type { FeedSink, PublishResult, SinkMessage } from './feedSink.ts';

export interface NatsSinkOptions {
  /** NATS_URL; undefined: every publish answers that the deployment has no NATS server. */
  url: string | undefined;
  stream: string;
  subjectRoot: string;
  /** The stream's duplicate window: a message id published again within it is dropped. */
  duplicateWindowMs: number;
  /** The stream's max_age when this sink creates it (the feed's retention). */
  maxAgeMs: number;
  /** How long one publish waits for the stream's acknowledgement. */
  ackTimeoutMs: number;
  /** Client name the server shows (monitoring). */
  name: string;
  logger: Logger;
}

export const NATS_NOT_CONFIGURED = 'NATS is not configured on this deployment (NATS_URL is not set)';

/** JetStream API error code (nats-server): a stream of that name exists with another configuration. */
const STREAM_NAME_IN_USE = 10058;

interface Link {
  connection: NatsConnection;
  jetstream: JetStreamClient;
}

const apiErrorCode = (error: unknown): number | undefined => (error as NatsError).api_error?.err_code;

/** What the stream answers a publish (JetStream's PubAck), or its error. */
interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

const NO_STREAM = 'no JetStream stream answered (503): is JetStream enabled, and does the stream hold the subject?';

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as NatsError).code;
  // nats.js reports a publish no stream took (or a server without JetStream) as a bare 503.
  if (text === '503' || code === '503') return NO_STREAM;
  return (code && code !== text ? `${code}: ${text}` : text).slice(0, 500);
}

/** What the health answer's `broker` check says (src/modules/utils/routes.ts, docs/operations.md). */
export type NatsHealth = 'ok' | 'down' | 'no_jetstream';

/**
 * Whether the NATS server at `url` answers now, with JetStream (what nats subscriptions publish to):
 * a connection of its own, not the sink's (which may be reconnecting, or never opened), that asks
 * JetStream for the account's info (one request, as `svc doctor` does) and closes again. `down` when
 * it cannot connect or has no answer within `timeoutMs`; `no_jetstream` when the server answers but
 * JetStream refuses. Never throws, and never outlives `timeoutMs`: a connection made after it is
 * closed at once.
 */
export async function probeNats(url: string, name: string, timeoutMs: number): Promise<NatsHealth> {
  const connecting = connect({ servers: url, name, timeout: timeoutMs, reconnect: false, noAsyncTraces: true });
  const answer = connecting.then(
    (connection) => connection.jetstreamManager().then(() => 'ok' as const, () => 'no_jetstream' as const),
    () => 'down' as const,
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), timeoutMs);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
    void connecting.then((connection) => connection.close()).catch(() => undefined);
  }
}

export function createNatsSink(options: NatsSinkOptions): FeedSink {
  const { stream, subjectRoot, logger } = options;
  const encoder = new TextEncoder();
  let link: Promise<Link> | null = null;
  let streamReady = false;
  let closed = false;
  let reportedDown = false;

  async function ensureStream(manager: JetStreamManager): Promise<void> {
    const subjects = [`${subjectRoot}.>`];
    const duplicateWindow = nanos(options.duplicateWindowMs);
    try {
      await manager.streams.add({
        name: stream,
        subjects,
        duplicate_window: duplicateWindow,
        max_age: nanos(Math.max(options.maxAgeMs, options.duplicateWindowMs)),
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
      });
      return;
    } catch (error) {
      if (apiErrorCode(error) !== STREAM_NAME_IN_USE) throw error;
    }
    // It exists (another instance made it, or an operator tuned it): widen it to our subjects and at
    // least our duplicate window, and leave the rest as it is.
    const { config } = await manager.streams.info(stream);
    const wider = config.subjects.includes(subjects[0]!) ? config.subjects : [...config.subjects, ...subjects];
    if (wider !== config.subjects || config.duplicate_window < duplicateWindow) {
      await manager.streams.update(stream, { ...config, subjects: wider, duplicate_window: Math.max(config.duplicate_window, duplicateWindow) });
    }
  }

  async function open(): Promise<Link> {
    const connection = await connect({
      servers: options.url,
      name: options.name,
      timeout: 2_000,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      // Without it every request (each publish waits for its acknowledgement as one) captures two stack
      // traces, for an error it almost never raises: about a third of the client's time per message.
      noAsyncTraces: true,
    });
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'disconnect' || status.type === 'reconnect') logger.warn({ nats: status.data }, `NATS sink ${status.type}`);
      }
    })();
    void connection.closed().then(() => {
      link = null;
      streamReady = false;
    });
    return { connection, jetstream: connection.jetstream() };
  }

  async function ready(): Promise<Link> {
    if (closed) throw new Error('the NATS sink is closed');
    link ??= open().catch((error: unknown) => {
      link = null;
      throw error;
    });
    const current = await link;
    if (!streamReady) {
      await ensureStream(await current.connection.jetstreamManager());
      streamReady = true;
    }
    return current;
  }

  /** The headers of a message, with those JetStream's client would add for `msgID` and `expect.streamName`. */
  function headersOf(message: SinkMessage): MsgHdrs {
    const values = headers();
    values.append('Svc-Site', message.siteId);
    values.append('Svc-Subscription', message.subscriptionId);
    values.append('Svc-Event', message.type);
    values.append('Svc-Cursor', message.cursor);
    values.append('Nats-Msg-Id', message.id);
    values.append('Nats-Expected-Stream', stream);
    return values;
  }

  /** The stream's answer to one publish: its sequence, or why it was not stored. */
  function answerOf(reply: Msg): number | string {
    // A status without a body: 503 when no stream took the subject (nothing subscribed to it).
    if (reply.headers && reply.headers.code >= 300) {
      return reply.headers.code === 503 ? NO_STREAM : `${reply.headers.code} ${reply.headers.description}`.trim();
    }
    try {
      const ack = reply.json<PubAck>();
      if (ack.error) return `${ack.error.err_code ?? ack.error.code ?? 'error'}: ${ack.error.description ?? 'the stream refused the message'}`.slice(0, 500);
      if (ack.stream === stream && typeof ack.seq === 'number') return ack.seq;
      return `an acknowledgement from another stream (${String(ack.stream)})`;
    } catch {
      return 'an acknowledgement that is not JSON';
    }
  }

  /**
   * Publishes every message before any acknowledgement is awaited, each with its reply subject under
   * one inbox of the batch, and waits for the answers (or the ack timeout, counted from the last
   * publish). Each answer is the stream's sequence of the message, or why it was not stored.
   */
  async function publishAll(connection: NatsConnection, messages: readonly SinkMessage[]): Promise<(number | string | undefined)[]> {
    const inbox = createInbox();
    const answers: (number | string | undefined)[] = new Array(messages.length);
    let waiting = messages.length;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const replies = connection.subscribe(`${inbox}.*`, {
      callback: (error, reply) => {
        if (error) {
          // The inbox itself failed (a permission): nothing more will be answered.
          for (let index = 0; index < answers.length; index += 1) answers[index] ??= describe(error);
          finish();
          return;
        }
        const index = Number(reply.subject.slice(inbox.length + 1));
        if (!Number.isInteger(index) || index < 0 || index >= answers.length || answers[index] !== undefined) return;
        answers[index] = answerOf(reply);
        waiting -= 1;
        if (waiting === 0) finish();
      },
    });
    // The connection closed under the batch: what was not answered will not be.
    void replies.closed.then(finish, finish);
    for (let index = 0; index < messages.length; index += 1) {
      const message = messages[index]!;
      try {
        connection.publish(natsSubjectOf(subjectRoot, message.siteId, message.channel, message.collection), encoder.encode(message.body), {
          reply: `${inbox}.${index}`,
          headers: headersOf(message),
        });
      } catch (error) {
        for (let rest = index; rest < messages.length; rest += 1) answers[rest] ??= describe(error);
        finish();
        break;
      }
    }
    const timer = setTimeout(finish, options.ackTimeoutMs);
    try {
      await finished;
    } finally {
      clearTimeout(timer);
      if (!replies.isClosed()) replies.unsubscribe();
    }
    return answers;
  }

  return {
    kind: 'nats',

    async publish(messages: readonly SinkMessage[]): Promise<PublishResult> {
      if (!options.url) return { acknowledged: 0, position: null, error: NATS_NOT_CONFIGURED };
      let current: Link;
      try {
        current = await ready();
      } catch (error) {
        if (!reportedDown) logger.warn({ err: error }, 'NATS sink cannot reach its server; nats subscriptions wait');
        reportedDown = true;
        return { acknowledged: 0, position: null, error: `NATS unreachable: ${describe(error)}` };
      }
      if (reportedDown) logger.info('NATS sink reached its server again');
      reportedDown = false;
      if (messages.length === 0) return { acknowledged: 0, position: null, error: null };
      // Every publish is sent before any acknowledgement is awaited: one round trip for the batch.
      const answers = await publishAll(current.connection, messages);
      let acknowledged = 0;
      while (acknowledged < answers.length && typeof answers[acknowledged] === 'number') acknowledged += 1;
      const last = acknowledged > 0 ? (answers[acknowledged - 1] as number) : null;
      if (acknowledged === messages.length) return { acknowledged, position: last, error: null };
      // The stream may have been removed or changed under us: check it again before the next batch.
      streamReady = false;
      const failure = answers[acknowledged];
      return { acknowledged, position: last, error: typeof failure === 'string' ? failure : `TIMEOUT: no acknowledgement within ${options.ackTimeoutMs} ms` };
    },

    async storedAfter(siteId, channel, position) {
      if (!options.url) throw new Error(NATS_NOT_CONFIGURED);
      const current = await ready();
      const manager = await current.connection.jetstreamManager();
      // An ephemeral consumer of the subscription's subjects from just after `position`: it says how
      // many messages are there, and hands them over without acknowledgements.
      const consumer = await manager.consumers.add(stream, {
        filter_subject: natsSubjectFilterOf(subjectRoot, siteId, channel),
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: position + 1,
        ack_policy: AckPolicy.None,
        inactive_threshold: nanos(60_000),
      });
      const ids = new Set<string>();
      try {
        let pending = consumer.num_pending;
        const reader = await current.jetstream.consumers.get(stream, consumer.name);
        while (pending > 0) {
          const batch = await reader.fetch({ max_messages: Math.min(pending, 10_000), expires: 5_000 });
          let received = 0;
          for await (const message of batch as AsyncIterable<JsMsg>) {
            const id = message.headers?.get('Nats-Msg-Id');
            if (id) ids.add(id);
            received += 1;
          }
          if (received === 0) break;
          pending -= received;
        }
      } finally {
        await manager.consumers.delete(stream, consumer.name).catch(() => undefined);
      }
      return ids;
    },

    destination(siteId, channel) {
      return { stream, subjects: natsSubjectFilterOf(subjectRoot, siteId, channel) };
    },

    async close() {
      closed = true;
      const pending = link;
      link = null;
      if (!pending) return;
      try {
        await (await pending).connection.close();
      } catch {
        // It never connected: nothing to close.
      }
    },
  };
}
