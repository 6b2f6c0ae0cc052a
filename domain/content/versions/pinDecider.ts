// An item's pins: a field (a relation field, or `*` for the item itself) held at one revision of the
// item it points at, so that readers see that revision instead of the live state until released.
// A staged revision (written by a draft, not committed) cannot be pinned.
import { AppError } from '../../shared/appError.ts';
import type { Decider } from '../../shared/events.ts';
import { eventTypesOf } from '../../shared/eventSchema.ts';
import { type PinEvent, pinEventSchemas } from './events.ts';

export type PinCommand =
  | {
      type: 'pin';
      collection: string;
      itemId: string;
      field: string;
      revision: { revisionId: string; collection: string; itemId: string; staged: boolean };
    }
  | { type: 'release'; collection: string; itemId: string; field: string | null };

export interface PinState {
  /** field → revision id */
  pins: Record<string, string>;
}

export const pinDecider: Decider<PinState, PinCommand, PinEvent> = {
  eventTypes: eventTypesOf(pinEventSchemas),
  initialState: () => ({ pins: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'pin.created':
        return { pins: { ...state.pins, [event.data.field]: event.data.revisionId } };
      case 'pin.released': {
        const { [event.data.field]: _released, ...rest } = state.pins;
        return { pins: rest };
      }
      default:
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'pin': {
        const { revision } = command;
        if (revision.staged) {
          throw new AppError('REVISION_STAGED', 'This revision is staged (written by a draft) and cannot be pinned', {
            path: ['body', 'revisionId'],
          });
        }
        if (state.pins[command.field] === revision.revisionId) return [];
        return [
          {
            type: 'pin.created',
            data: {
              collection: command.collection,
              itemId: command.itemId,
              field: command.field,
              revisionId: revision.revisionId,
              targetCollection: revision.collection,
              targetItemId: revision.itemId,
            },
          },
        ];
      }
      case 'release': {
        const fields = command.field === null ? Object.keys(state.pins).sort() : [command.field];
        if (command.field !== null && !(command.field in state.pins)) {
          throw new AppError('NOT_FOUND', `The field "${command.field}" of this item is not pinned`);
        }
        return fields.map((field) => ({ type: 'pin.released' as const, data: { collection: command.collection, itemId: command.itemId, field } }));
      }
    }
  },
};
