// A user of one site: created with a password hash (hashing happens outside, it is I/O-heavy),
// its password changed (bumping tokenVersion so existing access tokens die at once).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';

export type UserEvent =
  | {
      type: 'user.created';
      data: {
        userId: string;
        email: string;
        passwordHash: string | null;
        firstName: string | null;
        lastName: string | null;
        roleId: string | null;
        status: 'active' | 'invited' | 'unverified' | 'suspended';
      };
    }
  | { type: 'user.password_changed'; data: { userId: string; passwordHash: string; tokenVersion: number; reason: 'change' | 'reset' | 'invite' } }
  | { type: 'user.sign_in_failed'; data: { userId: string; reason: 'wrong_password' | 'inactive' } };

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
  | { type: 'changePassword'; passwordHash: string; reason: 'change' | 'reset' | 'invite' }
  | { type: 'recordFailedSignIn'; reason: 'wrong_password' | 'inactive' };

export interface UserState {
  exists: boolean;
  userId: string | null;
  tokenVersion: number;
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, userId: null, tokenVersion: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'user.created': {
        const data = event.data as { userId: string };
        return { exists: true, userId: data.userId, tokenVersion: 0 };
      }
      case 'user.password_changed': {
        const data = event.data as { tokenVersion: number };
        return { ...state, tokenVersion: data.tokenVersion };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createUser':
        if (state.exists) throw new AppError('CONFLICT', 409, 'User already exists');
        return [
          {
            type: 'user.created',
            data: {
              userId: command.userId,
              email: command.email.toLowerCase(),
              passwordHash: command.passwordHash,
              firstName: command.firstName ?? null,
              lastName: command.lastName ?? null,
              roleId: command.roleId,
              status: command.status ?? 'active',
            },
          },
        ];
      case 'changePassword':
        if (!state.exists) throw new AppError('RECORD_NOT_FOUND', 404, 'User not found');
        return [
          {
            type: 'user.password_changed',
            data: { userId: state.userId!, passwordHash: command.passwordHash, tokenVersion: state.tokenVersion + 1, reason: command.reason },
          },
        ];
      case 'recordFailedSignIn':
        if (!state.exists) throw new AppError('RECORD_NOT_FOUND', 404, 'User not found');
        return [{ type: 'user.sign_in_failed', data: { userId: state.userId!, reason: command.reason } }];
    }
  },
};
