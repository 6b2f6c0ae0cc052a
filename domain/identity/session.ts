// A sign-in session: one refresh-token family. Each refresh rotates the token; presenting a token
// that was already rotated means it leaked, so the whole family is revoked.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SessionEvent, sessionEventSchemas, type SessionRevokeReason } from './events.ts';

export type { SessionEvent, SessionRevokeReason };

export type SessionCommand =
  | { type: 'startSession'; sessionId: string; userId: string; refreshTokenHash: string; expiresAt: Date; userAgent?: string | null; ip?: string | null; impersonatorId?: string | null }
  | { type: 'refreshSession'; presentedTokenHash: string; nextTokenHash: string; expiresAt: Date; now: Date }
  | { type: 'revokeSession'; reason: SessionRevokeReason };

export interface SessionState {
  status: 'absent' | 'active' | 'revoked';
  sessionId: string | null;
  currentTokenHash: string | null;
  rotatedTokenHashes: string[];
  expiresAt: string | null;
}

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  eventTypes: eventTypesOf(sessionEventSchemas),
  initialState: () => ({ status: 'absent', sessionId: null, currentTokenHash: null, rotatedTokenHashes: [], expiresAt: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'session.started': {
        const { sessionId, refreshTokenHash, expiresAt } = event.data;
        return { status: 'active', sessionId, currentTokenHash: refreshTokenHash, rotatedTokenHashes: [], expiresAt };
      }
      case 'session.refreshed': {
        const { previousTokenHash, refreshTokenHash, expiresAt } = event.data;
        return { ...state, currentTokenHash: refreshTokenHash, rotatedTokenHashes: [...state.rotatedTokenHashes, previousTokenHash], expiresAt };
      }
      case 'session.revoked':
        return { ...state, status: 'revoked' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'startSession':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Session already exists');
        return [
          {
            type: 'session.started',
            data: {
              sessionId: command.sessionId,
              userId: command.userId,
              refreshTokenHash: command.refreshTokenHash,
              expiresAt: command.expiresAt.toISOString(),
              userAgent: command.userAgent ?? null,
              ip: command.ip ?? null,
              impersonatorId: command.impersonatorId ?? null,
            },
          },
        ];
      case 'refreshSession': {
        if (state.status !== 'active') throw new AppError('UNAUTHENTICATED', 'The refresh token is no longer valid');
        if (state.rotatedTokenHashes.includes(command.presentedTokenHash)) {
          return [{ type: 'session.revoked', data: { sessionId: state.sessionId!, reason: 'token_reuse' } }];
        }
        if (command.presentedTokenHash !== state.currentTokenHash) {
          throw new AppError('UNAUTHENTICATED', 'The refresh token is not valid');
        }
        if (state.expiresAt && new Date(state.expiresAt) <= command.now) {
          return [{ type: 'session.revoked', data: { sessionId: state.sessionId!, reason: 'expired' } }];
        }
        return [
          {
            type: 'session.refreshed',
            data: { sessionId: state.sessionId!, previousTokenHash: command.presentedTokenHash, refreshTokenHash: command.nextTokenHash, expiresAt: command.expiresAt.toISOString() },
          },
        ];
      }
      case 'revokeSession':
        if (state.status !== 'active') return [];
        return [{ type: 'session.revoked', data: { sessionId: state.sessionId!, reason: command.reason } }];
    }
  },
};
