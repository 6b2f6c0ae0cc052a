// The email area's background part, started by its manifest (src/modules/index.ts) and stopped with
// the context: the keys over addresses, the pooled SMTP mailer (none without SMTP_URL), and the send
// queue with its worker (BullMQ with REDIS_URL, else the PostgreSQL-backed queue).
import { createMailer, type Mailer } from '../../../infra/mail/mailer.ts';
import { createJobQueue } from '../../../infra/queue/createJobQueue.ts';
import { deploymentNamespace } from '../../../infra/queue/deploymentNamespace.ts';
import type { JobQueue } from '../../../infra/queue/jobQueue.ts';
import type { AppContext } from '../../runtime/context.ts';
import { createEmailKeys } from './addresses.ts';
import { deliverBatch, type EmailSender, type SendBatch } from './sending.ts';

const SEND_QUEUE = 'email-send';

export interface EmailRuntime extends EmailSender {
  queue: JobQueue;
  /** Stops the worker and the queue, then closes the SMTP pool. */
  stop(): Promise<void>;
}

/** The address inside `Name <address>` (or the whole text). */
function addressIn(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
}

function unsubscribeMailto(from: string, configured: string | undefined): string {
  const address = configured ?? addressIn(from).replace(/@/, '+unsubscribe@');
  return `mailto:${address}?subject=unsubscribe`;
}

export async function startEmailRuntime(context: AppContext): Promise<EmailRuntime> {
  const { config } = context;
  const mailer: Mailer | null = config.SMTP_URL
    ? createMailer({ smtpUrl: config.SMTP_URL, from: config.SVC_MAIL_FROM, logger: context.logger, logBodies: false, pooledConnections: config.SVC_EMAIL_SMTP_CONNECTIONS })
    : null;
  const queue = await createJobQueue({
    redisUrl: config.REDIS_URL,
    namespace: deploymentNamespace(config),
    database: context.database,
    logger: context.logger,
    metrics: context.metrics,
  });
  const base = new URL('api/v1/email/unsubscribe', config.SVC_PUBLIC_URL.endsWith('/') ? config.SVC_PUBLIC_URL : `${config.SVC_PUBLIC_URL}/`);
  const runtime: EmailRuntime = {
    keys: createEmailKeys(config.SVC_SECRET),
    mailer,
    queue,
    enqueue: (batch) => queue.enqueue(SEND_QUEUE, `${batch.siteId}:${batch.sendId}:${batch.recipients[0]?.hash ?? ''}`, batch),
    unsubscribeUrl(token) {
      const url = new URL(base);
      url.searchParams.set('token', token);
      return url.toString();
    },
    unsubscribeMailto: unsubscribeMailto(config.SVC_MAIL_FROM, config.SVC_EMAIL_UNSUBSCRIBE_MAILTO),
    policy: { maxAttempts: config.SVC_EMAIL_MAX_ATTEMPTS, retryBaseMs: config.SVC_EMAIL_RETRY_BASE_MS },
    async stop() {
      await queue.close();
      await mailer?.close();
    },
  };
  // Only an instance that can send takes send jobs: one without SMTP_URL would take a batch from the
  // shared queue and drop it.
  if (mailer) {
    queue.process<SendBatch>(
      SEND_QUEUE,
      async (batch) => {
        const retryInMs = await deliverBatch(context, runtime, batch);
        return retryInMs === null ? undefined : { retryInMs };
      },
      { concurrency: config.SVC_EMAIL_CONCURRENCY },
    );
  }
  return runtime;
}
