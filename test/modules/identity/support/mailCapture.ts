// A real local SMTP server (smtp-server on 127.0.0.1, a free port) that keeps every message it
// receives, decoded enough to read the subject, the text and the links in it.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll } from 'vitest';

export interface CapturedMail {
  to: string[];
  subject: string;
  text: string;
}

export interface MailCapture {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  mails: CapturedMail[];
  mailsTo(address: string): CapturedMail[];
  /** Resolves with the first mail (already received or still to come) to `address`. */
  waitFor(address: string, predicate?: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function parse(raw: string, to: string[]): CapturedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headerText = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headerText)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  if (encoding === 'quoted-printable') body = decodeQuotedPrintable(body);
  if (encoding === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return { to, subject: header('Subject'), text: body.replace(/\r\n/g, '\n') };
}

export async function startMailCapture(): Promise<MailCapture> {
  const mails: CapturedMail[] = [];
  const waiters: { address: string; predicate: (mail: CapturedMail) => boolean; resolve: (mail: CapturedMail) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = (session.envelope.rcptTo || []).map((recipient) => recipient.address.toLowerCase());
        const mail = parse(Buffer.concat(chunks).toString('utf8'), to);
        mails.push(mail);
        for (const waiter of [...waiters]) {
          if (mail.to.includes(waiter.address) && waiter.predicate(mail)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    mailsTo: (address) => mails.filter((mail) => mail.to.includes(address.toLowerCase())),
    waitFor(address, predicate = () => true, timeoutMs = 10_000) {
      const wanted = address.toLowerCase();
      const existing = mails.find((mail) => mail.to.includes(wanted) && predicate(mail));
      if (existing) return Promise.resolve(existing);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${address} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          address: wanted,
          predicate,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A mail capture for the test file that calls it (at its top level), closed after its last test. */
export async function startMailCaptureForFile(): Promise<MailCapture> {
  const mail = await startMailCapture();
  afterAll(() => mail.close());
  return mail;
}

/** The link of a mail (the first http(s) URL) and the token in its query. */
export function linkIn(mail: CapturedMail): { url: URL; token: string; site: string | null } {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in mail "${mail.subject}"`);
  const url = new URL(match[0]);
  const token = url.searchParams.get('token');
  if (!token) throw new Error(`no token in ${match[0]}`);
  return { url, token, site: url.searchParams.get('site') };
}
