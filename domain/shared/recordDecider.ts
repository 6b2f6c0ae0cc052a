// The decider of a stream that only records facts (a site's day stream of sign-in failures or of
// sensitive reads): no state and no rules, the command is the events to record. The command handler
// appends them at any version (`load: 'none'`), so that such a stream never needs folding.
import type { Decider, NewEvent } from './events.ts';

export interface RecordCommand<Event extends NewEvent> {
  type: 'record';
  events: Event[];
}

export function recordDecider<Event extends NewEvent>(): Decider<null, RecordCommand<Event>, Event> {
  return {
    // No state: it folds no event.
    eventTypes: [],
    initialState: () => null,
    evolve: (state) => state,
    decide: (command) => command.events,
  };
}
