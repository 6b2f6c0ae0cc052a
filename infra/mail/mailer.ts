// The mail port: SMTP through nodemailer when SMTP_URL is set, otherwise a log transport that sends
// nothing (outside production it logs the text so a developer can follow the links).
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export interface MailLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

export interface Mailer {
  readonly transport: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export interface MailerOptions {
  smtpUrl?: string;
  from: string;
  logger: MailLogger;
  /** Whether the log transport may write message bodies (they hold single-use links): never in production. */
  logBodies: boolean;
}

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options.from) : logMailer(options);
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transporter: Transporter = nodemailer.createTransport(smtpUrl);
  return {
    transport: 'smtp',
    async send(message) {
      await transporter.sendMail({ from, ...message });
    },
    async close() {
      transporter.close();
    },
  };
}

function logMailer({ from, logger, logBodies }: MailerOptions): Mailer {
  return {
    transport: 'log',
    async send(message) {
      logger.info(
        { mail: { from, to: message.to, subject: message.subject, ...(logBodies ? { text: message.text } : {}) } },
        'mail not sent (no SMTP_URL): log transport',
      );
    },
    async close() {},
  };
}
