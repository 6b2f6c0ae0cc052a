import { describe, expect, it } from 'vitest';
import { sessionDecider, type SessionEvent } from '../../../domain/identity/session.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const spec = deciderSpecification(sessionDecider);
const sessionId = '0f6b1c52-8f3e-4a51-9a57-2b8d7e0c1a11';
const userId = '5d2e7a90-1b4c-4f8e-8c3d-6a9b0e1f2c33';
const expiresAt = new Date('2026-02-01T00:00:00.000Z');
const now = new Date('2026-01-15T00:00:00.000Z');
const started: SessionEvent = {
  type: 'session.started',
  data: { sessionId, userId, refreshTokenHash: 'hash-a', expiresAt: expiresAt.toISOString(), userAgent: 'test', ip: '127.0.0.1', impersonatorId: null },
};
const refreshedAtoB: SessionEvent = {
  type: 'session.refreshed',
  data: { sessionId, previousTokenHash: 'hash-a', refreshTokenHash: 'hash-b', expiresAt: expiresAt.toISOString() },
};
const revokedForReuse: SessionEvent = { type: 'session.revoked', data: { sessionId, reason: 'token_reuse' } };

const refreshWith = (presentedTokenHash: string, at = now) =>
  ({ type: 'refreshSession', presentedTokenHash, nextTokenHash: 'hash-next', expiresAt, now: at }) as const;

describe('session decider', () => {
  it('starts a session with its first refresh token hash', () => {
    spec
      .given([])
      .when({ type: 'startSession', sessionId, userId, refreshTokenHash: 'hash-a', expiresAt, userAgent: 'test', ip: '127.0.0.1' })
      .then([started]);
  });

  it('refuses to start a session twice', () => {
    spec.given([started]).when({ type: 'startSession', sessionId, userId, refreshTokenHash: 'x', expiresAt }).thenThrows('CONFLICT', 409);
  });

  it('rotates the current refresh token', () => {
    spec
      .given([started])
      .when(refreshWith('hash-a'))
      .then([{ type: 'session.refreshed', data: { sessionId, previousTokenHash: 'hash-a', refreshTokenHash: 'hash-next', expiresAt: expiresAt.toISOString() } }]);
  });

  it('revokes the whole family when a token that was already rotated is presented', () => {
    spec.given([started, refreshedAtoB]).when(refreshWith('hash-a')).then([revokedForReuse]);
  });

  it('refuses the newest token of a family revoked for reuse', () => {
    spec.given([started, refreshedAtoB, revokedForReuse]).when(refreshWith('hash-b')).thenThrows('UNAUTHENTICATED', 401);
  });

  it('refuses a token that never belonged to the family, without revoking it', () => {
    spec.given([started]).when(refreshWith('hash-unknown')).thenThrows('UNAUTHENTICATED', 401);
  });

  it('ends an expired session instead of rotating it', () => {
    spec
      .given([started])
      .when(refreshWith('hash-a', new Date('2026-03-01T00:00:00.000Z')))
      .then([{ type: 'session.revoked', data: { sessionId, reason: 'expired' } }]);
  });

  it('refuses to refresh a session that does not exist', () => {
    spec.given([]).when(refreshWith('hash-a')).thenThrows('UNAUTHENTICATED', 401);
  });

  it('revokes an active session once; revoking again appends nothing', () => {
    spec.given([started]).when({ type: 'revokeSession', reason: 'logout' }).then([{ type: 'session.revoked', data: { sessionId, reason: 'logout' } }]);
    spec.given([started, { type: 'session.revoked', data: { sessionId, reason: 'logout' } }]).when({ type: 'revokeSession', reason: 'logout' }).thenNothing();
  });

  it('keeps every rotated token hash in its state', () => {
    const { state } = spec.given([started, refreshedAtoB]);
    expect(state).toMatchObject({ status: 'active', currentTokenHash: 'hash-b', rotatedTokenHashes: ['hash-a'] });
  });
});
