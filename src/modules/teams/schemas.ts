// The shapes of the teams routes: what they answer and what they take.
import { z } from 'zod';
import { uuidSchema } from '../../../domain/shared/uuid.ts';

/** A team as the routes answer it. */
export const teamSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  members: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** What a create takes (name required) and a PATCH (any of them). */
export const teamFields = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
  members: z.array(uuidSchema).max(10_000),
});
