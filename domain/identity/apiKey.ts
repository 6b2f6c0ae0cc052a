// A long-lived API key of one site, bound to a user or to a role. Only its hash is kept; the key
// itself is shown once, when it is created.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type ApiKeyEvent, apiKeyEventSchemas } from './events.ts';

export type { ApiKeyEvent };

export type ApiKeyCommand =
  | {
      type: 'createApiKey';
      apiKeyId: string;
      name: string;
      keyHash: string;
      prefix: string;
      userId: string | null;
      roleId: string | null;
      /** ISO 8601, checked to be in the future by the caller (the clock is not the decider's); absent or null: never. */
      expiresAt?: string | null;
    }
  | { type: 'revokeApiKey' };

export interface ApiKeyState {
  status: 'absent' | 'active' | 'revoked';
  apiKeyId: string | null;
}

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  eventTypes: eventTypesOf(apiKeyEventSchemas),
  initialState: () => ({ status: 'absent', apiKeyId: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'api_key.created':
        return { status: 'active', apiKeyId: event.data.apiKeyId };
      case 'api_key.revoked':
        return { ...state, status: 'revoked' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createApiKey':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'API key already exists');
        if ((command.userId === null) === (command.roleId === null)) {
          throw new AppError('VALIDATION_FAILED', 'An API key is bound to exactly one of userId or roleId', { path: ['body'] });
        }
        return [
          {
            type: 'api_key.created',
            data: {
              apiKeyId: command.apiKeyId,
              name: command.name,
              keyHash: command.keyHash,
              prefix: command.prefix,
              userId: command.userId,
              roleId: command.roleId,
              expiresAt: command.expiresAt ?? null,
            },
          },
        ];
      case 'revokeApiKey':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'API key not found');
        return [{ type: 'api_key.revoked', data: { apiKeyId: state.apiKeyId! } }];
    }
  },
};
