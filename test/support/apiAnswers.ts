// How the sweeping tests (fuzz, tenancy) judge an answer: the spec's error envelope, the 5xx answers
// that are a dependency's documented degraded mode rather than a failure, and the pages for browsers.
import type { TestResponse } from './testService.ts';

/**
 * 5xx codes that are a dependency's documented degraded mode in a service configured without that
 * dependency: the right answer there, not a failure.
 */
export const DEGRADED_MODES: Record<string, string> = {
  EMAIL_NOT_CONFIGURED: 'no SMTP_URL in the test service: the spec’s 503 for email in degraded mode',
};

/** Operations that answer a browser, not an API client: their refusals are HTML pages, by design. */
export const HTML_PAGES: Record<string, string> = {
  'GET /api/v1/email/unsubscribe': 'the link of an email, opened in a browser: a token that does not verify is a 400 HTML page, as its description says',
};

/** An HTML page of one of HTML_PAGES, where the envelope is not expected. */
export function isHtmlPage(operationKey: string, response: TestResponse): boolean {
  return Object.hasOwn(HTML_PAGES, operationKey) && response.headers.get('content-type')?.startsWith('text/html') === true;
}

/** The first error of the spec's envelope `{ errors: [{ code, message, … }] }`, or null when the body is not one. */
export function envelopeError(response: TestResponse): { code: string; message: string } | null {
  const first = response.body?.errors?.[0];
  return typeof first?.code === 'string' && typeof first?.message === 'string' ? first : null;
}

/** A 503 in the envelope naming one of DEGRADED_MODES. */
export function isDegradedMode(response: TestResponse): boolean {
  const error = envelopeError(response);
  return response.status === 503 && error !== null && Object.hasOwn(DEGRADED_MODES, error.code);
}
