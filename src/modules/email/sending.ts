// Sending (docs/email.md "Sending"): a send is planned in one transaction (the template and version,
// the recipients by keyed hash, what a marketing send skips) and then delivered: a transactional
// message while the request waits, a marketing send by the job queue, one message per recipient in
// batches. Each delivery attempt of a batch records every recipient's outcome from the relay's answer.
import { randomUUID } from 'node:crypto';
import type { DeliveryResult, EmailCategory, SendEvent } from '../../../domain/email/events.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { recordDecider } from '../../../domain/shared/recordDecider.ts';
import { MailDeliveryError, type MailMessage, type MailReceipt, type Mailer, type RefusedRecipient } from '../../../infra/mail/mailer.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommand, handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { EmailKeys } from './addresses.ts';
import { findLayout, findMessage, findTemplateByKey, findTemplateVersion, marketingFilter, recipientStates, type CandidateRecipient } from './queries.ts';
import { assertVariables, renderEmail, type RenderedEmail, type TemplateSource } from './render.ts';
import { MAX_TRANSACTIONAL_RECIPIENTS, type MessageView, type SendBody } from './schemas.ts';
import { suppressAddress } from './suppressions.ts';

/** What sending needs of the area's runtime (src/modules/email/emailRuntime.ts). */
export interface EmailSender {
  keys: EmailKeys;
  /** null without SMTP_URL: sends are 503 EMAIL_NOT_CONFIGURED. */
  mailer: Mailer | null;
  enqueue(batch: SendBatch): Promise<void>;
  /** `<SVC_PUBLIC_URL>/api/v1/email/unsubscribe?token=…` */
  unsubscribeUrl(token: string): string;
  /** The `mailto:` of List-Unsubscribe. */
  unsubscribeMailto: string;
  policy: { maxAttempts: number; retryBaseMs: number };
}

/** One queued batch of a marketing send: the only place its addresses live until they are delivered. */
export interface SendBatch {
  siteId: string;
  sendId: string;
  replyTo: string | null;
  variables: Record<string, unknown>;
  recipients: CandidateRecipient[];
}

const BATCH_SIZE = 500;
const RESPONSE_MAX = 200;
const DELIVERY_METADATA: EventMetadata = { actor: { kind: 'system', id: 'email-delivery' } };

const sendStream = (siteId: string, sendId: string) => streamId(siteId, 'email-send', sendId);
const sendRecorder = recordDecider<SendEvent>();

function notConfigured(): AppError {
  return new AppError('EMAIL_NOT_CONFIGURED', 'Email is not configured on this deployment (SMTP_URL is not set)');
}

/** The message's source: a template's current version and its layout, or the inline message. */
interface ResolvedSource {
  category: EmailCategory;
  template: TemplateSource;
  layoutHtml: string | null;
  templateId: string | null;
  templateKey: string | null;
  templateVersion: number | null;
  layoutId: string | null;
  layoutVersion: number | null;
  variables: string[];
}

async function resolveTemplate(tx: Queryable, siteId: string, key: string, path: (string | number)[]): Promise<ResolvedSource> {
  const template = await findTemplateByKey(tx, siteId, key);
  if (!template) throw new AppError('VALIDATION_FAILED', 'No template with this key', { path });
  const layout = template.layoutId ? await findLayout(tx, siteId, template.layoutId) : null;
  return {
    category: template.category,
    template,
    layoutHtml: layout?.html ?? null,
    templateId: template.id,
    templateKey: template.key,
    templateVersion: template.version,
    layoutId: layout?.id ?? null,
    layoutVersion: layout?.version ?? null,
    variables: template.variables,
  };
}

function inlineSource(inline: NonNullable<SendBody['inline']>): ResolvedSource {
  return {
    category: 'transactional',
    template: { subject: inline.subject, html: inline.html ?? null, text: inline.text ?? null },
    layoutHtml: null,
    templateId: null,
    templateKey: null,
    templateVersion: null,
    layoutId: null,
    layoutVersion: null,
    variables: [],
  };
}

function unique(addresses: readonly string[]): string[] {
  return [...new Set(addresses)];
}

function planEvent(source: ResolvedSource, sendId: string, recipients: string[], skipped: { suppressed: number; noConsent: number; restricted: number }, test: boolean, variables: Record<string, unknown>): SendEvent {
  return {
    type: 'email_send.planned',
    data: {
      sendId,
      category: source.category,
      test,
      templateId: source.templateId,
      templateKey: source.templateKey,
      templateVersion: source.templateVersion,
      layoutId: source.layoutId,
      layoutVersion: source.layoutVersion,
      recipients,
      skipped,
      variableNames: Object.keys(variables).sort(),
    },
  };
}

async function recordResults(context: AppContext, siteId: string, sendId: string, results: DeliveryResult[]): Promise<void> {
  if (results.length === 0) return;
  await handleCommand(context, {
    siteId,
    streamId: sendStream(siteId, sendId),
    decider: sendRecorder,
    load: 'none',
    command: { type: 'record', events: [{ type: 'email_send.delivered', data: { sendId, results } }] },
    metadata: DELIVERY_METADATA,
  });
}

/** A relay's answer as recorded: one line, bounded, and without the address it may name (Postfix's `<bob@…>: Recipient address rejected`). */
const clip = (text: string) =>
  text
    .replace(/[^\s<>"'@]+@[^\s<>"'@]+/g, '<address>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, RESPONSE_MAX);

/** The outcome of one refused recipient: a 5xx is a hard bounce, a 4xx (or no answer) a deferral. */
function refusedOutcome(refused: RefusedRecipient): 'bounced' | 'deferred' {
  return refused.code !== null && refused.code >= 500 ? 'bounced' : 'deferred';
}

/** Suppresses the hard-bounced addresses of a delivery (reason `bounce`). */
async function suppressBounces(context: AppContext, sender: EmailSender, siteId: string, addresses: readonly string[]): Promise<void> {
  for (const email of addresses) {
    await suppressAddress(context, sender.keys, siteId, { email, reason: 'bounce' }, DELIVERY_METADATA);
  }
}

interface SendOptions {
  /** `POST /email/test`: no filtering whatever the category, `[test]` before the subject. */
  test?: boolean;
}

/**
 * `email.send`: plans the send and delivers it (transactional: now, 502 when the relay refuses it;
 * marketing: queued, 202). Nothing is recorded before the input is checked, nor without SMTP.
 */
export async function sendEmail(
  context: AppContext,
  sender: EmailSender,
  siteId: string,
  input: SendBody,
  metadata: EventMetadata,
  options: SendOptions = {},
): Promise<{ message: MessageView; queued: boolean }> {
  const variables = input.variables ?? {};
  const source = input.templateKey !== undefined
    ? await context.database.withSite(siteId, (tx) => resolveTemplate(tx, siteId, input.templateKey!, ['body', 'templateKey']))
    : inlineSource(input.inline!);
  assertVariables(source.variables, variables);
  const marketing = source.category === 'marketing' && !options.test;
  const to = unique(input.to);
  const cc = unique(input.cc ?? []).filter((address) => !to.includes(address));
  if (marketing && cc.length > 0) throw new AppError('VALIDATION_FAILED', 'A marketing send goes to each recipient alone: cc is not allowed', { path: ['body', 'cc'] });
  if (!marketing && to.length + cc.length > MAX_TRANSACTIONAL_RECIPIENTS) {
    throw new AppError('VALIDATION_FAILED', `One transactional message goes to at most ${MAX_TRANSACTIONAL_RECIPIENTS} addresses (to and cc)`, { path: ['body', 'to'] });
  }
  // Rendered once before anything is recorded: a template that fails with these variables is a 400, not a failed send.
  // A template's failure is the template's (body.templateKey); an inline message's, the part's.
  const renderPath = input.inline ? (part: string) => ['body', 'inline', part === 'layout' ? 'html' : part] : () => ['body', 'templateKey'];
  const sample = await renderEmail(source.template, source.layoutHtml, { ...variables, email: to[0], unsubscribeUrl: sender.unsubscribeUrl('preview') }, renderPath);
  if (options.test) sample.subject = `[test] ${sample.subject}`;
  const mailer = sender.mailer;
  if (!mailer) throw notConfigured();
  const sendId = randomUUID();
  const candidates = [...to, ...cc].map((email) => ({ email, hash: sender.keys.recipientHash(siteId, email) }));

  if (!marketing) {
    await inSiteTransaction(context, siteId, (tx) =>
      handleCommandIn(tx, context.projections, {
        siteId,
        streamId: sendStream(siteId, sendId),
        decider: sendRecorder,
        load: 'none',
        command: { type: 'record', events: [planEvent(source, sendId, candidates.map((c) => c.hash), { suppressed: 0, noConsent: 0, restricted: 0 }, options.test ?? false, variables)] },
        metadata,
      }),
    );
    await deliverTransactional(context, sender, mailer, siteId, sendId, candidates, { to, cc, replyTo: input.replyTo ?? null, rendered: sample });
    return { message: (await readMessage(context, siteId, sendId))!, queued: false };
  }

  const kept = await inSiteTransaction(context, siteId, async (tx) => {
    const filter = await marketingFilter(tx, siteId, candidates);
    const keep = candidates.filter((c) => !filter.suppressed.has(c.hash) && !filter.noConsent.has(c.hash) && !filter.restricted.has(c.hash));
    const skipped = { suppressed: filter.suppressed.size, noConsent: filter.noConsent.size, restricted: filter.restricted.size };
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: sendStream(siteId, sendId),
      decider: sendRecorder,
      load: 'none',
      command: { type: 'record', events: [planEvent(source, sendId, keep.map((c) => c.hash), skipped, false, variables)] },
      metadata,
    });
    return keep;
  });
  await enqueueBatches(context, sender, { siteId, sendId, replyTo: input.replyTo ?? null, variables, recipients: kept });
  return { message: (await readMessage(context, siteId, sendId))!, queued: true };
}

function readMessage(context: AppContext, siteId: string, sendId: string): Promise<MessageView | null> {
  return context.database.withSite(siteId, (tx) => findMessage(tx, siteId, sendId));
}

/** Queues a send's batches; when the queue cannot take them, its recipients are recorded as failed and the answer is 503. */
async function enqueueBatches(context: AppContext, sender: EmailSender, send: SendBatch): Promise<void> {
  for (let start = 0; start < send.recipients.length; start += BATCH_SIZE) {
    const batch = { ...send, recipients: send.recipients.slice(start, start + BATCH_SIZE) };
    try {
      await sender.enqueue(batch);
    } catch (error) {
      const unqueued = send.recipients.slice(start);
      await recordResults(context, send.siteId, send.sendId, unqueued.map((c) => ({ hash: c.hash, status: 'failed', messageId: null, response: 'the send queue was unavailable' })));
      throw new AppError('SERVICE_UNAVAILABLE', 'The send queue is unavailable: the recipients not queued are recorded as failed', {
        extensions: { dependency: 'queue' },
        cause: error,
      });
    }
  }
}

async function deliverTransactional(
  context: AppContext,
  sender: EmailSender,
  mailer: Mailer,
  siteId: string,
  sendId: string,
  candidates: CandidateRecipient[],
  message: { to: string[]; cc: string[]; replyTo: string | null; rendered: RenderedEmail },
): Promise<void> {
  const { rendered } = message;
  const mail: MailMessage = {
    to: message.to,
    ...(message.cc.length > 0 ? { cc: message.cc } : {}),
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    subject: rendered.subject,
    text: rendered.text,
    ...(rendered.html !== null ? { html: rendered.html } : {}),
  };
  const hashOf = new Map(candidates.map((c) => [c.email, c.hash]));
  let receipt: MailReceipt | null = null;
  let failure: MailDeliveryError | null = null;
  try {
    receipt = await mailer.send(mail);
  } catch (error) {
    failure = error instanceof MailDeliveryError ? error : new MailDeliveryError(error instanceof Error ? error.message : 'the relay failed', null, []);
  }
  const refused = new Map((receipt?.refused ?? failure?.refused ?? []).map((r) => [r.address.toLowerCase(), r]));
  const results: DeliveryResult[] = candidates.map(({ email }) => {
    const refusal = refused.get(email);
    // A synchronous send is not retried: a deferral is a failure the caller sees.
    if (refusal) return { hash: hashOf.get(email)!, status: refusedOutcome(refusal) === 'bounced' ? 'bounced' : 'failed', messageId: null, response: clip(refusal.response) };
    if (failure) return { hash: hashOf.get(email)!, status: 'failed', messageId: null, response: clip(failure.message) };
    return { hash: hashOf.get(email)!, status: 'sent', messageId: receipt!.messageId, response: clip(receipt!.response) };
  });
  await recordResults(context, siteId, sendId, results);
  const bounced = candidates.filter((_, index) => results[index]!.status === 'bounced').map((c) => c.email);
  await suppressBounces(context, sender, siteId, bounced);
  if (failure) {
    throw new AppError('DELIVERY_FAILED', `The mail relay refused the message: ${clip(failure.message)}`, { extensions: { sendId, smtpCode: failure.code } });
  }
}

/** List-Unsubscribe (RFC 2369) with the one-click URL and a mailto, and List-Unsubscribe-Post (RFC 8058). */
function unsubscribeHeaders(url: string, mailto: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>, <${mailto}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

/**
 * Delivers one queued batch of a marketing send: one message per recipient not yet sent or bounced,
 * rendered with the version the send planned. Returns the delay before the deferred ones are tried
 * again, or null when none is left.
 */
export async function deliverBatch(context: AppContext, sender: EmailSender, batch: SendBatch): Promise<number | null> {
  const mailer = sender.mailer;
  if (!mailer) return null;
  const { siteId, sendId } = batch;
  const plan = await context.database.withSite(siteId, async (tx) => {
    const message = await findMessage(tx, siteId, sendId);
    if (!message || message.templateId === null || message.templateVersion === null) return null;
    const version = await findTemplateVersion(tx, siteId, message.templateId, message.templateVersion);
    if (!version) return null;
    const layout = version.layoutId ? await findLayout(tx, siteId, version.layoutId) : null;
    const states = await recipientStates(tx, siteId, sendId, batch.recipients.map((r) => r.hash));
    return { version, layoutHtml: layout?.html ?? null, states };
  });
  if (!plan) return null; // the send or its site is gone
  const pending = batch.recipients.filter((r) => {
    const status = plan.states.get(r.hash)?.status;
    return status === 'queued' || status === 'deferred';
  });
  if (pending.length === 0) return null;

  const results: DeliveryResult[] = [];
  const bounced: string[] = [];
  let worstAttempts = 0;
  await forEachLimited(pending, 8, async (recipient) => {
    const attempts = (plan.states.get(recipient.hash)?.attempts ?? 0) + 1;
    const outcome = await deliverOne(mailer, sender, batch, recipient, plan.version, plan.layoutHtml);
    const status = outcome.status === 'deferred' && attempts >= sender.policy.maxAttempts ? 'failed' : outcome.status;
    if (status === 'deferred') worstAttempts = Math.max(worstAttempts, attempts);
    if (status === 'bounced') bounced.push(recipient.email);
    results.push({ hash: recipient.hash, status, messageId: outcome.messageId, response: outcome.response });
  });
  await recordResults(context, siteId, sendId, results);
  await suppressBounces(context, sender, siteId, bounced);
  if (worstAttempts === 0) return null;
  return Math.min(3_600_000, sender.policy.retryBaseMs * 2 ** (worstAttempts - 1));
}

async function deliverOne(
  mailer: Mailer,
  sender: EmailSender,
  batch: SendBatch,
  recipient: CandidateRecipient,
  template: TemplateSource,
  layoutHtml: string | null,
): Promise<Omit<DeliveryResult, 'hash'>> {
  const unsubscribeUrl = sender.unsubscribeUrl(await sender.keys.unsubscribeToken(batch.siteId, recipient.email));
  let rendered: RenderedEmail;
  try {
    rendered = await renderEmail(template, layoutHtml, { ...batch.variables, email: recipient.email, unsubscribeUrl });
  } catch (error) {
    return { status: 'failed', messageId: null, response: clip(error instanceof Error ? error.message : 'the template did not render') };
  }
  try {
    const receipt = await mailer.send({
      to: recipient.email,
      ...(batch.replyTo ? { replyTo: batch.replyTo } : {}),
      subject: rendered.subject,
      text: rendered.text,
      ...(rendered.html !== null ? { html: rendered.html } : {}),
      headers: unsubscribeHeaders(unsubscribeUrl, sender.unsubscribeMailto),
    });
    const refusal = receipt.refused[0];
    if (refusal) return { status: refusedOutcome(refusal), messageId: null, response: clip(refusal.response) };
    return { status: 'sent', messageId: receipt.messageId, response: clip(receipt.response) };
  } catch (error) {
    if (!(error instanceof MailDeliveryError)) return { status: 'deferred', messageId: null, response: clip(error instanceof Error ? error.message : 'the relay failed') };
    const refusal = error.refused[0];
    if (refusal) return { status: refusedOutcome(refusal), messageId: null, response: clip(refusal.response) };
    // A refusal of the message itself (not of the address) never suppresses: 5xx fails it, anything else is retried.
    return { status: error.code !== null && error.code >= 500 ? 'failed' : 'deferred', messageId: null, response: clip(error.message) };
  }
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}
