// Public account routes: sign-up, email verification, password reset, invitation acceptance. All are
// rate-limited as auth endpoints, and the ones taking an email answer 202 whether it is known or not.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { anonymousMetadata } from '../../auth/principal.ts';
import type { ServerDeps } from '../../server/serverDeps.ts';
import { passwordSchema } from './schemas.ts';
import { acceptInvite, forgotPassword, register, resendVerification, resetPassword, verifyEmail } from './registration.ts';

const emailSchema = z.email().max(320);
const tokenBody = z.object({ token: z.string().min(1).max(200) });
const accepted = z.object({ data: z.object({ message: z.string() }) });
const publicAuthRoute = { site: 'required' as const, access: 'public' as const, rateLimit: 'auth' as const };

export async function registrationRoutes(app: FastifyInstance, { context }: ServerDeps): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/auth/register',
    {
      config: publicAuthRoute,
      schema: {
        tags: ['auth'],
        body: z.object({
          email: emailSchema,
          password: passwordSchema,
          firstName: z.string().max(200).nullish(),
          lastName: z.string().max(200).nullish(),
        }),
        response: { 202: accepted },
      },
    },
    async (request, reply) => {
      await register(context, request.siteId, request.body, anonymousMetadata(request.id));
      return reply.status(202).send({ data: { message: 'If this address can be registered, a confirmation email is on its way.' } });
    },
  );

  api.post('/auth/verify-email', { config: publicAuthRoute, schema: { tags: ['auth'], body: tokenBody } }, async (request, reply) => {
    await verifyEmail(context, request.siteId, request.body.token, anonymousMetadata(request.id));
    return reply.status(204).send();
  });

  api.post(
    '/auth/resend-verification',
    { config: publicAuthRoute, schema: { tags: ['auth'], body: z.object({ email: emailSchema }), response: { 202: accepted } } },
    async (request, reply) => {
      await resendVerification(context, request.siteId, request.body.email, anonymousMetadata(request.id));
      return reply.status(202).send({ data: { message: 'If this address has an unconfirmed account, a new confirmation email is on its way.' } });
    },
  );

  api.post(
    '/auth/forgot-password',
    { config: publicAuthRoute, schema: { tags: ['auth'], body: z.object({ email: emailSchema }), response: { 202: accepted } } },
    async (request, reply) => {
      await forgotPassword(context, request.siteId, request.body.email, anonymousMetadata(request.id));
      return reply.status(202).send({ data: { message: 'If this address has an account, a password reset email is on its way.' } });
    },
  );

  api.post(
    '/auth/reset-password',
    { config: publicAuthRoute, schema: { tags: ['auth'], body: tokenBody.extend({ password: passwordSchema }) } },
    async (request, reply) => {
      await resetPassword(context, request.siteId, request.body.token, request.body.password, anonymousMetadata(request.id));
      return reply.status(204).send();
    },
  );

  api.post(
    '/auth/accept-invite',
    { config: publicAuthRoute, schema: { tags: ['auth'], body: tokenBody.extend({ password: passwordSchema }) } },
    async (request, reply) => {
      await acceptInvite(context, request.siteId, request.body.token, request.body.password, anonymousMetadata(request.id));
      return reply.status(204).send();
    },
  );
}
