// A site's encryption settings (stream `<siteId>/encryption`): which key-ring key seals new sensitive
// values, which keys it has retired, and whether values get their own data keys (envelope mode).
// A site that never rotated uses the ring's first key (`defaultKeyId`).
import { AppError } from '../shared/appError.ts';
import { streamId, type Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type EncryptionEvent, encryptionEventSchemas } from './events.ts';

export type { EncryptionEvent };

export interface EncryptionState {
  /** null until the site's first rotation: the key ring's default key is active. */
  activeKeyId: string | null;
  retiredKeyIds: string[];
  envelope: boolean;
}

export type EncryptionCommand =
  | { type: 'rotateKey'; keyId: string; defaultKeyId: string; provisioned: boolean }
  | { type: 'setEnvelope'; enabled: boolean }
  | { type: 'recordReseal'; operation: 'rewrap' | 'envelope_migration'; keyId: string; envelope: boolean; values: number };

export const encryptionStreamId = (siteId: string): string => streamId(siteId, 'encryption');

export const encryptionDecider: Decider<EncryptionState, EncryptionCommand, EncryptionEvent> = {
  eventTypes: eventTypesOf(encryptionEventSchemas),
  initialState: () => ({ activeKeyId: null, retiredKeyIds: [], envelope: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'encryption_key_rotated': {
        const retired = state.retiredKeyIds.filter((id) => id !== event.data.keyId && id !== event.data.previousKeyId);
        return { ...state, activeKeyId: event.data.keyId, retiredKeyIds: [...retired, event.data.previousKeyId] };
      }
      case 'envelope_mode_changed':
        return { ...state, envelope: event.data.enabled };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'rotateKey': {
        if (!command.provisioned) {
          throw new AppError('KEY_NOT_PROVISIONED', `Key "${command.keyId}" has no bytes in SVC_ENCRYPTION_KEYS`, { path: ['body', 'keyId'] });
        }
        const active = state.activeKeyId ?? command.defaultKeyId;
        if (active === command.keyId) return [];
        return [{ type: 'encryption_key_rotated', data: { keyId: command.keyId, previousKeyId: active } }];
      }
      case 'setEnvelope':
        return state.envelope === command.enabled ? [] : [{ type: 'envelope_mode_changed', data: { enabled: command.enabled } }];
      case 'recordReseal':
        if (command.values === 0) return [];
        return [{ type: 'encryption_values_resealed', data: { operation: command.operation, keyId: command.keyId, envelope: command.envelope, values: command.values } }];
    }
  },
};
