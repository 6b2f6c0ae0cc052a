// A site's email: layouts, templates and their versions, sending, the sends' outcomes, the suppression
// list and the public unsubscribe routes (docs/email.md).
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent } from './shapes.ts';

const notConfigured = 'Without `SMTP_URL` the answer is 503 `EMAIL_NOT_CONFIGURED` and nothing is recorded.';

export const emailOperations: OperationCatalogue = {
  'GET /email/capabilities': { summary: 'Whether email is configured, its transport, sender and features' },
  'GET /email/layouts': { summary: 'List email layouts' },
  'POST /email/layouts': { summary: 'Create an email layout', description: 'The HTML must contain `{{content}}` exactly once (400 at `body.html`).' },
  'GET /email/layouts/{id}': { summary: 'One email layout' },
  'PATCH /email/layouts/{id}': { summary: 'Change an email layout (a new version)' },
  'DELETE /email/layouts/{id}': {
    summary: 'Delete an email layout',
    description: 'A layout that a template uses is 409 `CONFLICT`.',
    errors: ['CONFLICT'],
    response: noContent('The layout is deleted.'),
  },
  'GET /email/templates': { summary: 'List email templates', description: 'Filter with `?category=transactional|marketing`.' },
  'POST /email/templates': {
    summary: 'Create an email template',
    description:
      'LiquidJS, sandboxed (no file, no code), HTML-escaped in the HTML part. `key` is unique in the site (409 at `body.key`); `layoutId` must name a layout ' +
      '(400 at `body.layoutId`); a template that does not parse or render is 400 at its part.',
    errors: ['CONFLICT'],
  },
  'GET /email/templates/{id}': { summary: 'One email template' },
  'PATCH /email/templates/{id}': { summary: 'Change an email template (a new version)', errors: ['CONFLICT'] },
  'DELETE /email/templates/{id}': { summary: 'Delete an email template', description: 'Its versions stay for the sends that used them.', response: noContent('The template is deleted.') },
  'GET /email/templates/{id}/versions': { summary: 'Every version of an email template, newest first' },
  'POST /email/templates/{key}/preview': {
    summary: 'Render an email template',
    description: 'The current version, or `version`; a declared variable left out is 400 at `body.variables.<name>`. An unknown key or version is 404.',
  },
  'POST /email/send': {
    summary: 'Send email',
    description:
      'Exactly one of `templateKey` and `inline`. Transactional: one message to `to` and `cc` (at most 50), delivered now: 200, or 502 `DELIVERY_FAILED` ' +
      'when the relay refuses it. Marketing: one message per recipient (at most 10,000), suppressed, non-consenting and restricted recipients skipped, ' +
      `queued: 202. ${notConfigured}`,
    errors: ['DELIVERY_FAILED', 'EMAIL_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE'],
  },
  'POST /email/test': {
    summary: 'Send a test message to the caller',
    description: `A template (\`[test]\` before its subject) or a built-in message, to the caller's own address, now. ${notConfigured}`,
    errors: ['DELIVERY_FAILED', 'EMAIL_NOT_CONFIGURED'],
  },
  'GET /email/messages': { summary: 'List sends with their counts', description: 'Newest first; filter with `?status=` and `?category=`.' },
  'GET /email/messages/{id}': { summary: 'One send with its counts' },
  'GET /email/messages/{id}/recipients': { summary: 'A send’s recipients by keyed hash, with each outcome', description: 'Filter with `?status=`.' },
  'GET /email/suppressions': { summary: 'List suppressed addresses', description: 'Newest first; `?email=` looks one address up.' },
  'POST /email/suppressions': { summary: 'Suppress an address', description: '201 when it is new, 200 with the existing row when it was already suppressed.' },
  'DELETE /email/suppressions/{email}': {
    summary: 'Re-subscribe an address',
    description: '404 when the address is not suppressed.',
    response: noContent('The address is no longer suppressed.'),
  },
  'GET /email/unsubscribe': {
    summary: 'Unsubscribe through the link of a marketing email',
    description: 'The token names the site and the address; it suppresses the address. A token that does not verify is a 400 HTML page and suppresses nothing.',
    response: { status: 200, contentType: 'text/html', description: 'The confirmation page.' },
  },
  'POST /email/unsubscribe': {
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      'The token in the query or in a form body (`application/x-www-form-urlencoded`, with `List-Unsubscribe=One-Click`). A token that does not verify is 400 ' +
      'at `query.token` or `body.token`.',
  },
};
