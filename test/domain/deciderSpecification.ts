// Given events / when command / then events (or an error), for any decider, with no database:
// the shape Emmett's DeciderSpecification uses.
import { expect } from 'vitest';
import { AppError } from '../../domain/shared/appError.ts';
import { eventsOf, type Decider, type NewEvent } from '../../domain/shared/events.ts';

export interface ThenStep<Event> {
  then(expected: Event[]): void;
  thenNothing(): void;
  thenThrows(code: string, status: number, path?: (string | number)[]): void;
}

export function deciderSpecification<State, Command, Event extends NewEvent>(decider: Decider<State, Command, Event>) {
  return {
    given(history: { type: string; data: unknown }[]) {
      const state = eventsOf(decider, history).reduce((current, event) => decider.evolve(current, event), decider.initialState());
      return {
        state,
        when(command: Command): ThenStep<Event> {
          const decide = () => decider.decide(command, state);
          return {
            then(expected) {
              expect(decide()).toEqual(expected);
            },
            thenNothing() {
              expect(decide()).toEqual([]);
            },
            thenThrows(code, status, path) {
              let thrown: unknown;
              try {
                decide();
              } catch (error) {
                thrown = error;
              }
              expect(thrown, `expected ${code}`).toBeInstanceOf(AppError);
              const appError = thrown as AppError;
              expect({ code: appError.code, status: appError.status }).toEqual({ code, status });
              if (path) expect(appError.path).toEqual(path);
            },
          };
        },
      };
    },
  };
}
