// The public unsubscribe routes (docs/email.md): the link a recipient follows (GET, an HTML page) and
// the RFC 8058 one-click POST a mail client sends. The token names the site, so no site header is
// needed; a token that does not verify suppresses nothing.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { acceptFormBodies } from '../../server/routeKit.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import type { EmailRuntime } from './emailRuntime.ts';

const FORM_LIMIT = 4_096;
const MAX_TOKEN = 2_000;
const tokenSchema = z.string().max(MAX_TOKEN).optional();

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** `j***@example.com`: enough for a recipient to recognize the address, not enough to harvest one. */
function maskAddress(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
}

function page(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .send(html);
}

export async function unsubscribeRoutes(app: FastifyInstance, { context }: ServerDeps, runtime: EmailRuntime): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const route = {
    site: 'none' as const,
    access: 'public' as const,
    rateLimit: { name: 'emailUnsubscribe', limit: context.config.SVC_RATE_LIMIT_UNSUBSCRIBE, per: 'ip' as const },
  };
  // What a mail client posts: `List-Unsubscribe=One-Click` (and, from a form, `token=…`).
  acceptFormBodies(app, FORM_LIMIT);

  /** Runs `email.unsubscribe` in the site the token names; a token that does not verify is 400 at `path`. */
  async function unsubscribe(token: string | undefined, method: 'link' | 'one_click', metadata: EventMetadata, path: string[]): Promise<string> {
    const claims = token ? await runtime.keys.readUnsubscribeToken(token) : null;
    if (!token || !claims) throw new AppError('VALIDATION_FAILED', 'This unsubscribe link is not valid', { path });
    try {
      const { email } = await context.commands.run<{ email: string }>(
        'email.unsubscribe',
        { token, method },
        { siteId: claims.siteId, principal: { kind: 'anonymous' }, metadata },
      );
      return email;
    } catch (error) {
      // The command names its input's token; the route names where the caller put it.
      throw error instanceof AppError && error.code === 'VALIDATION_FAILED' ? error.at(path) : error;
    }
  }

  // Whatever the query holds, the person who clicked gets a page: a repeated or oversized token is the error page, not JSON.
  const linkQuery = z.object({ token: z.union([z.string(), z.array(z.string())]).optional() });
  api.get('/email/unsubscribe', { config: route, schema: { tags: ['email'], querystring: linkQuery } }, async (request, reply) => {
    try {
      const { token } = request.query;
      const email = await unsubscribe(typeof token === 'string' && token.length <= MAX_TOKEN ? token : undefined, 'link', request.metadata, ['query', 'token']);
      return page(reply, 200, 'You are unsubscribed', `${maskAddress(email)} will receive no more newsletters or other marketing email from this sender.`);
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        return page(reply, 400, 'This link does not work', 'The unsubscribe link is not valid. Use the link from the most recent email, or contact the sender.');
      }
      throw error;
    }
  });

  api.post(
    '/email/unsubscribe',
    {
      config: route,
      schema: {
        tags: ['email'],
        querystring: z.object({ token: tokenSchema }),
        body: z.object({ token: tokenSchema }).catchall(z.string()).nullish(),
        response: { 200: z.object({ data: z.object({ unsubscribed: z.literal(true) }) }) },
      },
    },
    async (request) => {
      const inQuery = request.query.token !== undefined;
      await unsubscribe(inQuery ? request.query.token : request.body?.token, 'one_click', request.metadata, inQuery ? ['query', 'token'] : ['body', 'token']);
      return { data: { unsubscribed: true as const } };
    },
  );
}
