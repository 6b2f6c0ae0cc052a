// The mail port: SMTP through nodemailer when SMTP_URL is set, otherwise a log transport that sends
// nothing (outside production it logs the text so a developer can follow the links). A send answers
// the relay's receipt: the message id, and which recipients it accepted and refused (with the SMTP
// answer of each), so a caller can record an outcome per recipient.
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string | string[];
  cc?: string[];
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export interface RefusedRecipient {
  address: string;
  /** The SMTP reply code (550, 451, …), or null when the relay gave none. */
  code: number | null;
  response: string;
}

export interface MailReceipt {
  messageId: string | null;
  accepted: string[];
  refused: RefusedRecipient[];
  /** The relay's final answer to the message ("250 2.0.0 Ok: queued as …"). */
  response: string;
}

/**
 * A send the relay refused as a whole (no connection, a refused sender, every recipient refused, an
 * error after DATA): `code` is the SMTP reply code when there is one, null for a connection failure.
 */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly refused: RefusedRecipient[],
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

export interface MailLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

export interface Mailer {
  readonly transport: 'smtp' | 'log';
  readonly from: string;
  /** Resolves with the receipt; rejects with a MailDeliveryError when the relay refused the message. */
  send(message: MailMessage): Promise<MailReceipt>;
  close(): Promise<void>;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  logger: MailLogger;
  /** Whether the log transport may write message bodies (they hold single-use links): never in production. */
  logBodies: boolean;
  /** Keep up to this many SMTP connections open and reuse them (bulk sends); unset: a connection per message. */
  pooledConnections?: number;
  /** Milliseconds to wait for the relay's greeting and each answer (default 30 s). */
  timeoutMs?: number;
}

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options) : logMailer(options);
}

function smtpMailer(smtpUrl: string, options: MailerOptions): Mailer {
  const timeout = options.timeoutMs ?? 30_000;
  // nodemailer is imported on the first send, not at startup: most instances send mail rarely or never.
  let transporter: Promise<Transporter> | undefined;
  const transporterOf = () =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        ...(options.pooledConnections ? { pool: true, maxConnections: options.pooledConnections, maxMessages: 1_000 } : {}),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      }),
    ));
  const { from } = options;
  return {
    transport: 'smtp',
    from,
    async send(message) {
      const smtp = await transporterOf();
      try {
        const info = await smtp.sendMail({ from, ...message });
        return receiptOf(info);
      } catch (error) {
        throw deliveryErrorOf(error);
      }
    },
    async close() {
      (await transporter)?.close();
    },
  };
}

interface NodemailerRecipientError {
  recipient?: string;
  responseCode?: number;
  response?: string;
}

function addressOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'address' in value && typeof value.address === 'string') return value.address;
  return String(value);
}

function receiptOf(info: { messageId?: string; accepted?: unknown[]; rejected?: unknown[]; rejectedErrors?: NodemailerRecipientError[]; response?: string }): MailReceipt {
  const errorsByAddress = new Map((info.rejectedErrors ?? []).map((error) => [String(error.recipient ?? '').toLowerCase(), error]));
  return {
    messageId: info.messageId ?? null,
    accepted: (info.accepted ?? []).map(addressOf),
    refused: (info.rejected ?? []).map((recipient) => {
      const address = addressOf(recipient);
      const error = errorsByAddress.get(address.toLowerCase());
      return { address, code: error?.responseCode ?? null, response: error?.response ?? 'refused' };
    }),
    response: info.response ?? '',
  };
}

function deliveryErrorOf(error: unknown): MailDeliveryError {
  const failure = (error ?? {}) as { message?: string; responseCode?: number; response?: string; rejectedErrors?: NodemailerRecipientError[] };
  const refused = (failure.rejectedErrors ?? []).map((rejected) => ({
    address: String(rejected.recipient ?? ''),
    code: rejected.responseCode ?? null,
    response: rejected.response ?? 'refused',
  }));
  const code = failure.responseCode ?? refused[0]?.code ?? null;
  return new MailDeliveryError(failure.response ?? failure.message ?? 'the relay refused the message', code, refused);
}

function logMailer({ from, logger, logBodies }: MailerOptions): Mailer {
  return {
    transport: 'log',
    from,
    async send(message) {
      logger.info(
        { mail: { from, to: message.to, subject: message.subject, ...(logBodies ? { text: message.text } : {}) } },
        'mail not sent (no SMTP_URL): log transport',
      );
      const to = Array.isArray(message.to) ? message.to : [message.to];
      return { messageId: null, accepted: [...to, ...(message.cc ?? [])], refused: [], response: 'logged' };
    },
    async close() {},
  };
}
