// What the contexts' events.ts build on. A leaf: the catalogue imports the contexts' events.ts, and
// domain/shared/events.ts the catalogue.
import { z } from 'zod';

/** `{ type, data }` for each event type of a map of data schemas (what a decider emits). */
export type EventOf<Schemas extends Record<string, z.ZodType>> = {
  [Type in keyof Schemas & string]: { type: Type; data: z.infer<Schemas[Type]> };
}[keyof Schemas & string];

/** The event types of a map of data schemas, in its order: a decider's `eventTypes`. */
export function eventTypesOf<Schemas extends Record<string, z.ZodType>>(schemas: Schemas): (keyof Schemas & string)[] {
  return Object.keys(schemas) as (keyof Schemas & string)[];
}

/**
 * A JSON object whose keys and values are content (an item's fields, a filter, preferences): checked
 * to be an object, never walked. Item events carry whole items on every write; a check of each key
 * would cost every read of the log per field.
 */
export const contentObjectSchema = z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
  error: 'expected an object',
});
