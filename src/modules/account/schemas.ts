// Shapes of the account area that other areas answer with too (users list a user's sessions).
import { z } from 'zod';

/** A session as /me/sessions and /users/:id/sessions answer it. */
export const sessionSchema = z.object({
  id: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  expiresAt: z.string(),
  current: z.boolean(),
  impersonated: z.boolean(),
});
