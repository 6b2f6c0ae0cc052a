// A user of one site: created with a password hash (hashing happens outside, it is I/O-heavy), its
// password changed (bumping tokenVersion so existing access tokens die at once), its email verified,
// its profile updated, its preferences merged, linked to external identities, impersonated, deleted.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type FailedSignInCount, type PasswordChangeReason, type Preferences, type UserChanges, type UserEvent, userEventSchemas } from './events.ts';

export type { PasswordChangeReason, Preferences, UserChanges, UserEvent };

export type UserStatus = 'active' | 'invited' | 'unverified' | 'suspended' | 'deleted';

export type UserCommand =
  | {
      type: 'createUser';
      userId: string;
      email: string;
      passwordHash: string | null;
      firstName?: string | null;
      lastName?: string | null;
      roleId: string | null;
      status?: 'active' | 'invited' | 'unverified';
    }
  | { type: 'changePassword'; passwordHash: string; reason: PasswordChangeReason }
  | { type: 'recordFailedSignIn'; reason: 'wrong_password' | 'inactive'; counted?: FailedSignInCount }
  | { type: 'verifyEmail' }
  | { type: 'updateUser'; changes: UserChanges }
  | { type: 'deleteUser' }
  | { type: 'updatePreferences'; changes: Preferences }
  | { type: 'linkExternalIdentity'; issuerId: string; externalId: string }
  | { type: 'impersonate'; impersonatorId: string; sessionId: string };

export interface UserState {
  exists: boolean;
  userId: string | null;
  tokenVersion: number;
  status: UserStatus | null;
  email: string | null;
  emailVerified: boolean;
  /** `<issuerId>\u0000<externalId>` of every linked external identity. */
  identities: string[];
}

const identityKey = (issuerId: string, externalId: string) => `${issuerId}\u0000${externalId}`;

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'User not found');
}

/** Only keys whose value differs from nothing: an empty change set appends no event. */
function presentChanges(changes: UserChanges): UserChanges {
  const result: UserChanges = {};
  for (const [key, value] of Object.entries(changes) as [keyof UserChanges, unknown][]) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = key === 'email' ? String(value).trim().toLowerCase() : value;
  }
  return result;
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  eventTypes: eventTypesOf(userEventSchemas),
  initialState: () => ({ exists: false, userId: null, tokenVersion: 0, status: null, email: null, emailVerified: false, identities: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'user.created':
        return {
          ...state,
          exists: true,
          userId: event.data.userId,
          tokenVersion: 0,
          status: event.data.status,
          email: event.data.email,
          emailVerified: false,
        };
      case 'user.password_changed':
        return { ...state, tokenVersion: event.data.tokenVersion, status: state.status === 'invited' ? 'active' : state.status };
      case 'user.email_verified':
        return { ...state, emailVerified: true, status: state.status === 'unverified' || state.status === 'invited' ? 'active' : state.status };
      case 'user.updated':
        return {
          ...state,
          email: event.data.changes.email ?? state.email,
          emailVerified: event.data.changes.email !== undefined && event.data.changes.email !== state.email ? false : state.emailVerified,
          status: event.data.changes.status ?? state.status,
        };
      case 'user.deleted':
        return { ...state, status: 'deleted' };
      case 'user.external_identity_linked':
        return { ...state, identities: [...state.identities, identityKey(event.data.issuerId, event.data.externalId)] };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'createUser') {
      if (state.exists) throw new AppError('CONFLICT', 'User already exists');
      return [
        {
          type: 'user.created',
          data: {
            userId: command.userId,
            email: command.email.trim().toLowerCase(),
            passwordHash: command.passwordHash,
            firstName: command.firstName ?? null,
            lastName: command.lastName ?? null,
            roleId: command.roleId,
            status: command.status ?? 'active',
          },
        },
      ];
    }
    if (!state.exists || state.status === 'deleted') throw notFound();
    const userId = state.userId!;
    switch (command.type) {
      case 'changePassword':
        return [
          {
            type: 'user.password_changed',
            data: { userId, passwordHash: command.passwordHash, tokenVersion: state.tokenVersion + 1, reason: command.reason },
          },
        ];
      case 'recordFailedSignIn':
        return [{ type: 'user.sign_in_failed', data: { userId, reason: command.reason, ...command.counted } }];
      case 'verifyEmail':
        if (state.emailVerified) return [];
        return [{ type: 'user.email_verified', data: { userId, email: state.email! } }];
      case 'updateUser': {
        const changes = presentChanges(command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'user.updated', data: { userId, changes } }];
      }
      case 'deleteUser':
        return [{ type: 'user.deleted', data: { userId } }];
      case 'updatePreferences':
        if (Object.keys(command.changes).length === 0) return [];
        return [{ type: 'user.preferences_updated', data: { userId, changes: command.changes } }];
      case 'linkExternalIdentity':
        if (state.identities.includes(identityKey(command.issuerId, command.externalId))) return [];
        return [{ type: 'user.external_identity_linked', data: { userId, issuerId: command.issuerId, externalId: command.externalId } }];
      case 'impersonate':
        if (state.status !== 'active') throw new AppError('CONFLICT', 'Only an active user can be impersonated');
        if (command.impersonatorId === userId) throw new AppError('VALIDATION_FAILED', 'You cannot impersonate yourself', { path: ['params', 'id'] });
        return [{ type: 'user.impersonated', data: { userId, impersonatorId: command.impersonatorId, sessionId: command.sessionId } }];
    }
  },
};
