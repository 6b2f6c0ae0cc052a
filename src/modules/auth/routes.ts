import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../domain/shared/appError.ts';
import { apiKeyAuthenticator } from '../../auth/apiKeyAuthenticator.ts';
import { externalJwtAuthenticator } from '../../auth/externalJwtAuthenticator.ts';
import { anonymousMetadata, userPrincipal } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { currentUser, login, logout, refresh, type SignedIn } from './handlers.ts';
import { registrationRoutes } from './registrationRoutes.ts';
import { createSignInLimiter } from './signInLimits.ts';

export const REFRESH_COOKIE = 'svc_refresh';

const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  avatar: z.string().nullable(),
});
const signedInSchema = z.object({
  data: z.object({ token: z.string(), expires: z.number(), refreshToken: z.string(), user: userSchema }),
});

export async function authRoutes(app: FastifyInstance, deps: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { context } = deps;
  const { config } = context;
  // The bearer-token chain: API key, then trusted external issuers, then the service's own JWT.
  deps.authenticators.push(apiKeyAuthenticator(context), externalJwtAuthenticator(context, context.identity.keySets));
  await registrationRoutes(app, deps);
  const signInLimiter = createSignInLimiter(config, context.logger);
  context.onClose(() => signInLimiter.close());

  function sendSignedIn(reply: FastifyReply, signedIn: SignedIn) {
    reply.setCookie(REFRESH_COOKIE, signedIn.refreshToken, {
      httpOnly: true,
      secure: config.SVC_COOKIE_SECURE || config.NODE_ENV === 'production',
      sameSite: config.SVC_COOKIE_SAME_SITE,
      domain: config.SVC_COOKIE_DOMAIN,
      path: '/api/v1/auth',
      expires: signedIn.refreshExpiresAt,
    });
    return { data: { token: signedIn.token, expires: signedIn.expires, refreshToken: signedIn.refreshToken, user: signedIn.user } };
  }

  /** The refresh token from the body, or from the cookie when the CSRF brake header is present. */
  function presentedRefreshToken(request: FastifyRequest, body: { refreshToken?: string } | null | undefined): string {
    if (body?.refreshToken) return body.refreshToken;
    const cookie = request.cookies[REFRESH_COOKIE];
    if (!cookie) throw new AppError('VALIDATION_FAILED', 'No refresh token: send refreshToken in the body or the cookie', { path: ['body', 'refreshToken'] });
    if (request.headers['x-svc-refresh'] === undefined) {
      throw new AppError('PERMISSION_DENIED', 'A cookie-sourced refresh needs the X-Svc-Refresh header', { path: ['headers', 'x-svc-refresh'] });
    }
    return cookie;
  }

  // A cookie-sourced call may send no body at all (Fastify then hands the schema null).
  const refreshBody = z.object({ refreshToken: z.string().min(1).max(512).optional() }).nullish();

  api.post(
    '/auth/login',
    {
      config: { site: 'required', access: 'public', rateLimit: 'auth' },
      schema: { tags: ['auth'], body: z.object({ email: z.string().min(1).max(320), password: z.string().min(1).max(512) }), response: { 200: signedInSchema } },
    },
    async (request, reply) => {
      const signedIn = await login({ ...deps, signInLimiter }, request.siteId, request.body, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null }, anonymousMetadata(request.id));
      return sendSignedIn(reply, signedIn);
    },
  );

  api.post(
    '/auth/refresh',
    { config: { site: 'required', access: 'public' }, schema: { tags: ['auth'], body: refreshBody, response: { 200: signedInSchema } } },
    async (request, reply) => {
      const presented = presentedRefreshToken(request, request.body);
      try {
        const signedIn = await refresh(deps, request.siteId, presented, anonymousMetadata(request.id));
        return sendSignedIn(reply, signedIn);
      } catch (error) {
        reply.clearCookie(REFRESH_COOKIE, { path: '/api/v1/auth' });
        throw error;
      }
    },
  );

  api.post('/auth/logout', { config: { site: 'required', access: 'public' }, schema: { tags: ['auth'], body: refreshBody } }, async (request, reply) => {
    const presented = presentedRefreshToken(request, request.body);
    await logout(context, request.siteId, presented, request.metadata);
    reply.clearCookie(REFRESH_COOKIE, { path: '/api/v1/auth' });
    return reply.status(204).send();
  });

  api.get('/auth/me', { config: { site: 'required', access: 'user' }, schema: { tags: ['auth'], response: { 200: z.object({ data: userSchema }) } } }, async (request) => {
    return { data: await currentUser(context, request.siteId, userPrincipal(request.principal).userId) };
  });
}
