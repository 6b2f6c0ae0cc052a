// The email bench's send (scripts/bench/email.ts, steps 2 to 4) over HTTP: the layout and marketing
// template, a warm-up send, the timed POST /email/send and its delivery followed to completion, with
// the CPU each step took in this process and in the scratch database's backends.
import type pg from 'pg';
import { backendsCpuMs } from './processCpu.ts';
import type { SmtpSink, SmtpSinkCounts } from './smtpSink.ts';
import { DOMAIN, seconds, SITE, thousands } from './emailSeed.ts';

export const POLL_MS = 500;
export const WARM_UP_RECIPIENTS = 20;

interface MessageView {
  id: string;
  status: 'queued' | 'completed' | 'failed';
  counts: { recipients: number; queued: number; sent: number; deferred: number; bounced: number; failed: number; skipped: number };
  skipped: { suppressed: number; noConsent: number; restricted: number };
  createdAt: string;
  completedAt: string | null;
}

export type Call = <T = { data: Record<string, unknown> }>(method: string, path: string, body?: unknown, expectedStatus?: number) => Promise<T>;

export function caller(base: string, token: string): Call {
  return async <T>(method: string, path: string, body?: unknown, expectedStatus?: number) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-svc-site': SITE, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const expected = expectedStatus === undefined ? response.ok : response.status === expectedStatus;
    if (!expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2_000)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
}

/** Where the CPU of the scratch database's backends is read: its owner's connection and its name. */
export interface Measure {
  owner: pg.Client;
  databaseName: string;
}

function cpuSpent(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return Math.round(total);
}

/** Starts a CPU clock: this process (service, client and the sink's thread) and the scratch database's backends; calling the answer reads it. */
export async function cpuClock(measure: Measure): Promise<() => Promise<{ processMs: number; dbMs: number | null }>> {
  const dbBefore = await backendsCpuMs(measure.owner, measure.databaseName);
  const before = process.cpuUsage();
  return async () => {
    const cpu = process.cpuUsage(before);
    return { processMs: (cpu.user + cpu.system) / 1000, dbMs: cpuSpent(dbBefore, await backendsCpuMs(measure.owner, measure.databaseName)) };
  };
}

const LAYOUT_HTML = `<!doctype html>
<html><body style="font-family: sans-serif; max-width: 640px; margin: auto">
<header><h2>{{ site }}</h2></header>
{{ content }}
<footer><p>You receive this because you subscribed to {{ site }}. <a href="{{ unsubscribeUrl }}">Unsubscribe</a></p></footer>
</body></html>`;

const TEMPLATE = {
  key: 'bench-newsletter',
  category: 'marketing',
  subject: '{{ site }} weekly: {{ headline }}',
  html: `<h1>{{ headline }}</h1>
<p>Hello {{ email }},</p>
{% for story in stories %}<h3>{{ story.title | upcase }}</h3><p>{{ story.summary }}</p>{% endfor %}`,
  variables: ['site', 'headline', 'stories'],
};

const SEND_VARIABLES = {
  site: 'Bench Weekly',
  headline: 'Five stories & one <benchmark>',
  stories: Array.from({ length: 5 }, (_, index) => ({ title: `Story ${index + 1}`, summary: `What happened in story ${index + 1}, in two sentences. It was measured.` })),
};

export async function createTemplate(call: Call): Promise<void> {
  const layout = await call<{ data: { id: string } }>('POST', '/email/layouts', { name: 'Bench newsletter layout', html: LAYOUT_HTML }, 201);
  await call('POST', '/email/templates', { ...TEMPLATE, layoutId: layout.data.id }, 201);
  const preview = await call<{ data: { subject: string; html: string | null; text: string } }>('POST', `/email/templates/${TEMPLATE.key}/preview`, {
    variables: SEND_VARIABLES,
  });
  if (!preview.data.html?.includes('&lt;benchmark&gt;') || !preview.data.text.includes('STORY 5')) {
    throw new Error(`the preview does not render as expected: ${JSON.stringify(preview.data).slice(0, 1_000)}`);
  }
}

function sendBody(addresses: string[]) {
  return { to: addresses, templateKey: TEMPLATE.key, variables: SEND_VARIABLES };
}

/** Polls the send every `intervalMs` until no recipient is queued or deferred, or the deadline passes. */
async function waitForCompletion(
  call: Call,
  id: string,
  intervalMs: number,
  timeoutMs: number,
  onPoll: (message: MessageView) => void = () => {},
): Promise<{ message: MessageView; timedOut: boolean }> {
  const started = performance.now();
  for (let poll = 1; ; poll += 1) {
    // Fixed ticks from the start: the lines stay on the 500 ms grid whatever a poll costs.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + poll * intervalMs - performance.now())));
    const { data: message } = await call<{ data: MessageView }>('GET', `/email/messages/${id}`);
    onPoll(message);
    if (message.status !== 'queued') return { message, timedOut: false };
    if (performance.now() - started > timeoutMs) return { message, timedOut: true };
  }
}

/** A small send first: the template cache, prepared statements, the SMTP pool and the JIT warm up outside the figures. */
export async function warmUp(call: Call): Promise<{ planningMs: number; completedMs: number }> {
  const addresses = Array.from({ length: WARM_UP_RECIPIENTS }, (_, index) => `warmup-${index}@${DOMAIN}`);
  const started = performance.now();
  const sent = await call<{ data: MessageView }>('POST', '/email/send', sendBody(addresses), 202);
  const planningMs = performance.now() - started;
  const { message, timedOut } = await waitForCompletion(call, sent.data.id, 100, 60_000);
  if (timedOut || message.counts.sent !== WARM_UP_RECIPIENTS) throw new Error(`the warm-up send did not complete: ${JSON.stringify(message)}`);
  return { planningMs: Math.round(planningMs), completedMs: Math.round(performance.now() - started) };
}

export interface Planning {
  id: string;
  ms: number;
  statements: number;
  processCpuMs: number;
  dbCpuMs: number | null;
  answer: MessageView;
  /** Epoch milliseconds of the 202: where the delivery clock starts. */
  answeredAt: number;
}

/** POST /email/send, timed from the request to its 202 answer, with the statements and the CPU it took. */
export async function timePlanning(call: Call, addresses: string[], measure: Measure & { stats: { queries: number } }): Promise<Planning> {
  const body = sendBody(addresses);
  const statementsBefore = measure.stats.queries;
  const cpu = await cpuClock(measure);
  const started = performance.now();
  const answer = await call<{ data: MessageView }>('POST', '/email/send', body, 202);
  const ms = performance.now() - started;
  const answeredAt = Date.now();
  const statements = measure.stats.queries - statementsBefore;
  const { processMs, dbMs } = await cpu();
  return { id: answer.data.id, ms: Math.round(ms), statements, processCpuMs: Math.round(processMs), dbCpuMs: dbMs, answer: answer.data, answeredAt };
}

export interface Delivery {
  message: MessageView;
  timedOut: boolean;
  /** The 202 to the last message the sink received. */
  deliveredMs: number | null;
  /** The 202 to the first message the sink received (negative: the first message arrived before the 202 did). */
  firstMessageMs: number | null;
  /** The 202 to the poll that saw the send completed (500 ms resolution). */
  seenCompletedMs: number;
  /** The send's own createdAt to completedAt (the service's clock: planning included). */
  serviceCompletedMs: number | null;
  messagesPerSecond: number | null;
  sink: SmtpSinkCounts;
  processCpuMs: number;
  dbCpuMs: number | null;
}

/** Follows the send to completion, one progress line per poll. */
export async function followDelivery(call: Call, planning: Planning, sink: SmtpSink, baseline: SmtpSinkCounts, timeoutMs: number, measure: Measure): Promise<Delivery> {
  const cpu = await cpuClock(measure);
  let previous = { elapsedMs: 0, sent: 0 };
  const sinceAnswer = () => Date.now() - planning.answeredAt;
  const { message, timedOut } = await waitForCompletion(call, planning.id, POLL_MS, timeoutMs, (progress) => {
    const elapsedMs = sinceAnswer();
    const { sent, deferred, queued, bounced, failed } = progress.counts;
    const overall = Math.round(sent / (elapsedMs / 1000));
    const recent = Math.round((sent - previous.sent) / ((elapsedMs - previous.elapsedMs) / 1000));
    previous = { elapsedMs, sent };
    const received = sink.counts().messages - baseline.messages;
    console.log(
      `  ${seconds(elapsedMs).padStart(7)}  sent ${thousands(sent).padStart(6)}  deferred ${thousands(deferred).padStart(5)}  queued ${thousands(queued).padStart(6)}` +
        `${bounced + failed > 0 ? `  bounced ${bounced}  failed ${failed}` : ''}  ${thousands(overall).padStart(5)} msg/s (last ${POLL_MS} ms: ${thousands(recent)}/s)  sink ${thousands(received)}`,
    );
  });
  const seenCompletedMs = sinceAnswer();
  const { processMs, dbMs } = await cpu();
  const counts = sink.counts();
  const received: SmtpSinkCounts = {
    messages: counts.messages - baseline.messages,
    recipients: counts.recipients - baseline.recipients,
    distinctRecipients: counts.distinctRecipients - baseline.distinctRecipients,
    forbidden: counts.forbidden - baseline.forbidden,
    bytes: counts.bytes - baseline.bytes,
    // Absolute: the pool keeps the warm-up's connections open.
    connections: counts.connections,
    firstMessageAt: counts.firstMessageAt,
    lastMessageAt: counts.lastMessageAt,
  };
  const deliveredMs = received.messages > 0 ? received.lastMessageAt - planning.answeredAt : null;
  return {
    message,
    timedOut,
    deliveredMs,
    firstMessageMs: received.messages > 0 ? received.firstMessageAt - planning.answeredAt : null,
    seenCompletedMs,
    serviceCompletedMs: message.completedAt ? Date.parse(message.completedAt) - Date.parse(message.createdAt) : null,
    messagesPerSecond: deliveredMs ? Math.round(received.messages / (deliveredMs / 1000)) : null,
    sink: received,
    processCpuMs: Math.round(processMs),
    dbCpuMs: dbMs,
  };
}
