// The event union a context's events.ts infers from its schemas. A leaf: the catalogue imports the
// contexts' events.ts, and domain/shared/events.ts the catalogue.
import type { z } from 'zod';

/** `{ type, data }` for each event type of a map of data schemas (what a decider emits). */
export type EventOf<Schemas extends Record<string, z.ZodType>> = {
  [Type in keyof Schemas & string]: { type: Type; data: z.infer<Schemas[Type]> };
}[keyof Schemas & string];
