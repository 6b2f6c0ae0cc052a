// Signing in, registration, the signed-in user's account, the instance's sites and the utilities.
import { z } from 'zod';
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent, openObject, timestamp } from './shapes.ts';

const preferences = z.object({ saveAction: z.enum(['stay', 'return', 'create_new']).nullable().optional() }).catchall(z.unknown());

export const authOperations: OperationCatalogue = {
  'POST /auth/login': {
    summary: 'Sign in with email and password',
    description:
      'Answers an access JWT (`token`, with its expiry `expires` in epoch seconds) and a rotating refresh token, also set as the httpOnly cookie ' +
      '`svc_refresh` (path /api/v1/auth). Repeated failures back off per address and per client.',
    errors: ['INVALID_CREDENTIALS', 'PERMISSION_DENIED'],
  },
  'POST /auth/refresh': {
    summary: 'Rotate the refresh token for a new access token',
    description:
      'The refresh token comes from the body or, with the header `X-Svc-Refresh`, from the cookie (403 without the header). A token used twice ' +
      'revokes its whole family (401).',
    errors: ['UNAUTHENTICATED', 'PERMISSION_DENIED'],
  },
  'POST /auth/logout': {
    summary: 'Sign out: revoke the refresh token’s family and clear the cookie',
    description: 'The refresh token comes from the body or, with `X-Svc-Refresh`, from the cookie.',
    errors: ['PERMISSION_DENIED'],
    response: noContent('Signed out.'),
  },
  'GET /auth/me': { summary: 'The signed-in user’s profile' },
  'POST /auth/register': {
    summary: 'Self-service subscriber sign-up',
    description: 'Always the same 202 whether or not the address can register (no account enumeration); a confirmation email follows.',
  },
  'POST /auth/verify-email': {
    summary: 'Activate an account with the emailed token',
    errors: ['UNAUTHENTICATED'],
    response: noContent('The account is active.'),
  },
  'POST /auth/resend-verification': { summary: 'Resend the activation email', description: 'Always the same 202.' },
  'POST /auth/forgot-password': { summary: 'Email a password reset link', description: 'Always the same 202.' },
  'POST /auth/reset-password': {
    summary: 'Set a new password with a reset token',
    description: 'Consumes the token and revokes every refresh token of the user.',
    errors: ['UNAUTHENTICATED'],
    response: noContent('The password is changed.'),
  },
  'POST /auth/accept-invite': {
    summary: 'Accept an invitation and set a password',
    errors: ['UNAUTHENTICATED'],
    response: noContent('The invited account is active.'),
  },
  'POST /me/change-password': {
    summary: 'Change the signed-in user’s password',
    description: 'The current password is verified; every session of the user is revoked.',
    errors: ['INVALID_CREDENTIALS'],
    response: noContent('The password is changed.'),
  },
  'GET /me/sessions': { summary: 'The signed-in user’s active sessions (redacted)' },
  'DELETE /me/sessions/{id}': { summary: 'Revoke one of the signed-in user’s sessions', response: noContent('The session is revoked.') },
  'DELETE /me/sessions': { summary: 'Revoke every session of the signed-in user', response: noContent('The sessions are revoked.') },
  'GET /me/preferences': { summary: 'The signed-in user’s preferences', response: { data: preferences } },
  'PATCH /me/preferences': {
    summary: 'Shallow-merge the signed-in user’s preferences',
    description: '`saveAction` is `stay`, `return`, `create_new` or null; other keys take any JSON value (at most 100 keys).',
    response: { data: preferences },
  },
  'GET /utils/health': {
    summary: 'Health of the service and its dependencies',
    description:
      'Each check is real and bounded in time: a query of the database and of the search index, a write and removal in the files’ storage, the job queue’s liveness, a Redis ping, and with NATS_URL the NATS server’s JetStream (`broker`). Answers 503 with the same `{ data }` body (status `error`) when a part the service cannot serve without fails; 200 `degraded` when only Redis (the shared cache, and with REDIS_URL the queue) or NATS (`broker`: only nats change-feed subscriptions wait on it, and they resume) is down. `failing` names the checks that are not `ok`.',
    response: {
      data: z.object({
        status: z.enum(['ok', 'degraded', 'error']),
        checks: z.record(z.string(), z.string()).describe('database, cache, storage, search, queue, broker (with NATS_URL), and any extra check: `ok` or why not'),
        failing: z.array(z.string()).describe('The checks that are not `ok`'),
        version: z.string(),
        runtime: openObject,
      }),
    },
  },
  'GET /utils/version': {
    summary: 'The service’s version',
    response: { data: z.object({ version: z.string(), api: z.number(), node: z.string(), startedAt: timestamp }) },
  },
  'POST /instance/sites': {
    summary: 'Create a site with its first administrator',
    errors: ['CONFLICT'],
  },
  'GET /instance/sites': { summary: 'List the instance’s sites' },
  'DELETE /instance/sites/{id}': { summary: 'Delete a site', response: noContent('The site is deleted.') },
};
