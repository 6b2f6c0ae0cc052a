// What the identity areas share, built once at boot (src/boot/boot.ts) and held in the context as
// `identity`: the mail port (sending in the
// background so that a response never reveals by its timing whether an address is known), the links
// put in emails, and the issuers' key-set cache.
import type { Logger } from 'pino';
import { createOutboundHttp } from '../../infra/http/outboundHttp.ts';
import { createMailer, type MailMessage, type Mailer } from '../../infra/mail/mailer.ts';
import type { Config } from '../config/config.ts';
import { createIssuerKeySets, type IssuerKeySets } from './issuerKeySets.ts';

export type EmailLinkKind = 'verify-email' | 'reset-password' | 'accept-invite';

export interface IdentityServices {
  mailer: Mailer;
  keySets: IssuerKeySets;
  /** Queues a mail; a failure is logged, never surfaced to the request that caused it. */
  sendInBackground(message: MailMessage): void;
  /** Resolves when every queued mail has been handed to the transport. */
  flushMail(): Promise<void>;
  /** `<SVC_PUBLIC_URL>/auth/<kind>?site=<site>&token=<token>`: the page that posts the token back. */
  emailLink(kind: EmailLinkKind, siteId: string, token: string): string;
}

export interface IdentityServicesDeps {
  config: Config;
  logger: Logger;
  version: string;
}

/** The services and the work to do when the context closes (send what is queued, close the transports). */
export function createIdentityServices(deps: IdentityServicesDeps): { services: IdentityServices; close(): Promise<void> } {
  const { config, logger } = deps;
  const mailer = createMailer({
    smtpUrl: config.SMTP_URL,
    from: config.SVC_MAIL_FROM,
    logger,
    logBodies: config.NODE_ENV !== 'production',
  });
  if (mailer.transport === 'log' && config.NODE_ENV === 'production') {
    logger.warn('SMTP_URL is not set: emails (verification, password reset, invitations) are not sent');
  }
  const pending = new Set<Promise<void>>();
  const issuerHttp = createOutboundHttp({
    allowPrivate: config.SVC_ISSUER_ALLOW_PRIVATE,
    userAgent: `svc-issuers/${deps.version}`,
  });
  const services: IdentityServices = {
    mailer,
    keySets: createIssuerKeySets({
      http: issuerHttp,
      cacheMaxAgeMs: config.SVC_JWKS_CACHE_SECONDS * 1000,
      cooldownMs: config.SVC_JWKS_COOLDOWN_SECONDS * 1000,
      timeoutMs: config.SVC_JWKS_TIMEOUT_MS,
    }),
    sendInBackground(message) {
      const sending = mailer
        .send(message)
        .then(() => undefined)
        .catch((error: unknown) => logger.error({ err: error, subject: message.subject }, 'mail delivery failed'))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },
    async flushMail() {
      await Promise.all([...pending]);
    },
    emailLink(kind, siteId, token) {
      const url = new URL(`auth/${kind}`, config.SVC_PUBLIC_URL.endsWith('/') ? config.SVC_PUBLIC_URL : `${config.SVC_PUBLIC_URL}/`);
      url.searchParams.set('site', siteId);
      url.searchParams.set('token', token);
      return url.toString();
    },
  };
  return {
    services,
    async close() {
      await services.flushMail();
      await mailer.close();
      issuerHttp.close();
    },
  };
}
