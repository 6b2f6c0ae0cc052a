// A real local SMTP relay for the email tests (smtp-server on 127.0.0.1, a free port): it parses every
// message it accepts with mailparser, and can refuse chosen recipients at RCPT TO (550: a hard
// bounce, 451: a deferral) or every message (a relay failure), as a real relay would answer.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { afterAll } from 'vitest';

export interface SinkMessage {
  /** The RCPT TO addresses the relay accepted for this message, lower-cased. */
  envelopeTo: string[];
  subject: string;
  /** The HTML part, or null when the message has none. */
  html: string | null;
  /** The text part as mailparser reads it (derived from the HTML by mailparser when there is no text part). */
  text: string;
  /** Whether the message itself carries a text/plain part (mailparser's `text` does not say). */
  hasTextPart: boolean;
  /** The parsed header map (lower-case names). */
  headers: ParsedMail['headers'];
  /** Each header's unfolded value(s) as sent, by lower-case name: `List-Unsubscribe` is read here. */
  rawHeaders: Map<string, string[]>;
  /** `List-Unsubscribe` and `List-Unsubscribe-Post` as sent, or null. */
  listUnsubscribe: string | null;
  listUnsubscribePost: string | null;
  messageId: string | null;
  /** The whole message source. */
  raw: string;
}

/** Where a refusal of every message is answered: at each RCPT TO, or after the message data. */
export type RefusalStage = 'rcpt' | 'data';

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  messages: SinkMessage[];
  messagesTo(address: string): SinkMessage[];
  /** Refuses `address` at RCPT TO with this code (550 a hard bounce, 451 a deferral) until `accept(address)`. */
  refuse(address: string, code: number): void;
  accept(address: string): void;
  /** Refuses every message with this code (at RCPT TO or at DATA) until `acceptAll()`. */
  refuseAll(code: number, stage?: RefusalStage): void;
  acceptAll(): void;
  /** Resolves once `count` messages (those that match `predicate`, if given) have arrived. */
  waitForCount(count: number, timeoutMs?: number, predicate?: (message: SinkMessage) => boolean): Promise<SinkMessage[]>;
  close(): Promise<void>;
}

interface Waiter {
  count: number;
  predicate: (message: SinkMessage) => boolean;
  resolve: (messages: SinkMessage[]) => void;
}

/** An error smtp-server answers with the given reply code. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

function readStream(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Header values as sent (folded lines joined), by lower-case name. */
function rawHeadersOf(parsed: ParsedMail): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  for (const { key, line } of parsed.headerLines) {
    const value = line
      .replace(/\r?\n[ \t]+/g, ' ')
      .slice(line.indexOf(':') + 1)
      .trim();
    headers.set(key.toLowerCase(), [...(headers.get(key.toLowerCase()) ?? []), value]);
  }
  return headers;
}

async function messageOf(raw: Buffer, session: SMTPServerSession): Promise<SinkMessage> {
  const parsed = await simpleParser(raw);
  const rawHeaders = rawHeadersOf(parsed);
  const source = raw.toString('utf8');
  return {
    envelopeTo: (session.envelope.rcptTo || []).map((recipient) => recipient.address.toLowerCase()),
    subject: parsed.subject ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    text: parsed.text ?? '',
    hasTextPart: /content-type:\s*text\/plain/i.test(source),
    headers: parsed.headers,
    rawHeaders,
    listUnsubscribe: rawHeaders.get('list-unsubscribe')?.[0] ?? null,
    listUnsubscribePost: rawHeaders.get('list-unsubscribe-post')?.[0] ?? null,
    messageId: parsed.messageId ?? null,
    raw: source,
  };
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const waiters: Waiter[] = [];
  const refusals = new Map<string, number>();
  let refuseEverything: { code: number; stage: RefusalStage } | null = null;

  function settleWaiters(): void {
    for (const waiter of [...waiters]) {
      const matching = messages.filter(waiter.predicate);
      if (matching.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(matching);
    }
  }

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A pooled client left open must not hold the file's end for the default 30 s.
    closeTimeout: 1_000,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      if (refuseEverything?.stage === 'rcpt') return callback(smtpError(refuseEverything.code, 'Relay refuses every message'));
      const code = refusals.get(address.address.toLowerCase());
      if (code !== undefined) return callback(smtpError(code, code >= 500 ? 'No such user here' : 'Try again later'));
      callback();
    },
    onData(stream, session, callback) {
      readStream(stream)
        .then(async (raw) => {
          // Read to the end either way: smtp-server answers DATA only once the stream is consumed.
          if (refuseEverything?.stage === 'data') return callback(smtpError(refuseEverything.code, 'Transaction failed'));
          messages.push(await messageOf(raw, session));
          settleWaiters();
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  // A client that drops its connection (a pooled transport closing) is not a test failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    messagesTo: (address) => messages.filter((message) => message.envelopeTo.includes(address.toLowerCase())),
    refuse: (address, code) => void refusals.set(address.toLowerCase(), code),
    accept: (address) => void refusals.delete(address.toLowerCase()),
    refuseAll(code, stage = 'rcpt') {
      refuseEverything = { code, stage };
    },
    acceptAll() {
      refuseEverything = null;
    },
    waitForCount(count, timeoutMs = 15_000, predicate = () => true) {
      const matching = messages.filter(predicate);
      if (matching.length >= count) return Promise.resolve(matching);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          count,
          predicate,
          resolve: (found) => {
            clearTimeout(timer);
            resolve(found);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${messages.filter(predicate).length} of ${count} messages arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An SMTP sink for the test file that calls it (at its top level, with `await`), closed after its last test. */
export async function startSmtpSinkForFile(): Promise<SmtpSink> {
  const sink = await startSmtpSink();
  afterAll(() => sink.close());
  return sink;
}

/** The unsubscribe URL and token of a marketing message's `List-Unsubscribe` header. */
export function unsubscribeLinkOf(message: SinkMessage): { url: URL; token: string; mailto: string | null } {
  const header = message.listUnsubscribe;
  if (!header) throw new Error(`no List-Unsubscribe in "${message.subject}"`);
  const links = [...header.matchAll(/<([^>]+)>/g)].map((match) => match[1]!);
  const https = links.find((link) => /^https?:/i.test(link));
  if (!https) throw new Error(`no http(s) link in List-Unsubscribe: ${header}`);
  const url = new URL(https);
  const token = url.searchParams.get('token');
  if (!token) throw new Error(`no token in ${https}`);
  return { url, token, mailto: links.find((link) => /^mailto:/i.test(link)) ?? null };
}
