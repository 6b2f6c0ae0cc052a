// An erasure request (stream `<siteId>/erasure/<erasureId>`) under dual control: requested by one site
// administrator, confirmed by another while the site's `erasureDualControl` setting is on (the
// default), then executed once. The subject is kept only as a keyed hash; the matched records by id.
import { AppError } from '../shared/appError.ts';
import { streamId, type Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type ErasureEvent, erasureEventSchemas } from './events.ts';

export type { ErasureEvent };

export type ErasureStatus = 'none' | 'requested' | 'confirmed' | 'executed';

export interface ErasureState {
  status: ErasureStatus;
  requestedBy: string | null;
  collection: string | null;
  subjectHash: string | null;
  recordIds: string[];
}

export type ErasureCommand =
  | { type: 'request'; erasureId: string; collection: string; subjectHash: string; reason: string; requestedBy: string; recordIds: string[] }
  /** `impersonatorId`: the administrator behind an impersonated session (such a session never confirms). */
  | { type: 'confirm'; erasureId: string; confirmerId: string; impersonatorId: string | null; dualControl: boolean }
  | { type: 'execute'; erasureId: string; dualControl: boolean; erasedIds: string[]; shreddedValues: number };

export const erasureStreamId = (siteId: string, erasureId: string): string => streamId(siteId, 'erasure', erasureId);

/** An erasure executes once, and under dual control only once confirmed (409 otherwise, 404 if unknown). */
export function assertExecutable(state: ErasureState, erasureId: string, dualControl: boolean): void {
  if (state.status === 'none') throw new AppError('NOT_FOUND', `Erasure "${erasureId}" not found`);
  if (state.status === 'executed') throw new AppError('CONFLICT', `Erasure "${erasureId}" was executed`);
  if (dualControl && state.status !== 'confirmed') {
    throw new AppError('CONFLICT', `Erasure "${erasureId}" is not confirmed: a second site administrator confirms it first`);
  }
}

export const erasureDecider: Decider<ErasureState, ErasureCommand, ErasureEvent> = {
  eventTypes: eventTypesOf(erasureEventSchemas),
  initialState: () => ({ status: 'none', requestedBy: null, collection: null, subjectHash: null, recordIds: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'erasure_requested':
        return {
          status: 'requested',
          requestedBy: event.data.requestedBy,
          collection: event.data.collection,
          subjectHash: event.data.subjectHash,
          recordIds: event.data.recordIds,
        };
      case 'erasure_confirmed':
        return { ...state, status: 'confirmed' };
      case 'data_erased':
        return { ...state, status: 'executed' };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'request') {
      if (state.status !== 'none') throw new AppError('CONFLICT', `Erasure "${command.erasureId}" exists`);
      const { erasureId, collection, subjectHash, reason, requestedBy, recordIds } = command;
      return [{ type: 'erasure_requested', data: { erasureId, collection, subjectHash, reason, requestedBy, recordIds } }];
    }
    if (state.status === 'none') throw new AppError('NOT_FOUND', `Erasure "${command.erasureId}" not found`);
    if (state.status === 'executed') throw new AppError('CONFLICT', `Erasure "${command.erasureId}" was executed`);
    if (command.type === 'confirm') {
      if (state.status === 'confirmed') throw new AppError('CONFLICT', `Erasure "${command.erasureId}" is confirmed`);
      if (command.impersonatorId !== null) {
        throw new AppError('PERMISSION_DENIED', 'An erasure is confirmed by an administrator signed in as themselves, not through impersonation');
      }
      if (command.dualControl && command.confirmerId === state.requestedBy) {
        throw new AppError('PERMISSION_DENIED', 'Dual control: a second site administrator, not the requester, confirms an erasure');
      }
      return [{ type: 'erasure_confirmed', data: { erasureId: command.erasureId, confirmedBy: command.confirmerId } }];
    }
    assertExecutable(state, command.erasureId, command.dualControl);
    return [
      {
        type: 'data_erased',
        data: {
          erasureId: command.erasureId,
          collection: state.collection!,
          subjectHash: state.subjectHash!,
          recordCount: command.erasedIds.length,
          recordIds: command.erasedIds,
          shreddedValues: command.shreddedValues,
        },
      },
    ];
  },
};
