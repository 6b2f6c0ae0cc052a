import { describe, expect, it } from 'vitest';
import { roleDecider } from '../../../domain/identity/role.ts';
import { userDecider, type UserEvent } from '../../../domain/identity/user.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const users = deciderSpecification(userDecider);
const roles = deciderSpecification(roleDecider);
const userId = '5d2e7a90-1b4c-4f8e-8c3d-6a9b0e1f2c33';
const roleId = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const created: UserEvent = {
  type: 'user.created',
  data: { userId, email: 'ada@example.test', passwordHash: 'hash-1', firstName: 'Ada', lastName: null, roleId, status: 'active' },
};
const passwordChanged = (tokenVersion: number): UserEvent => ({
  type: 'user.password_changed',
  data: { userId, passwordHash: `hash-${tokenVersion + 1}`, tokenVersion, reason: 'change' },
});

describe('user decider', () => {
  it('creates a user with its email in lower case', () => {
    users
      .given([])
      .when({ type: 'createUser', userId, email: '  Ada@Example.TEST ', passwordHash: 'hash-1', firstName: 'Ada', roleId })
      .then([created]);
  });

  it('refuses to create a user twice', () => {
    users.given([created]).when({ type: 'createUser', userId, email: 'x@example.test', passwordHash: null, roleId: null }).thenThrows('CONFLICT', 409);
  });

  it('bumps tokenVersion on each password change, so older access tokens stop working', () => {
    users.given([created]).when({ type: 'changePassword', passwordHash: 'hash-2', reason: 'change' }).then([passwordChanged(1)]);
    users
      .given([created, passwordChanged(1)])
      .when({ type: 'changePassword', passwordHash: 'hash-3', reason: 'reset' })
      .then([{ type: 'user.password_changed', data: { userId, passwordHash: 'hash-3', tokenVersion: 2, reason: 'reset' } }]);
    expect(users.given([created, passwordChanged(1), passwordChanged(2)]).state.tokenVersion).toBe(2);
  });

  it('records a failed sign-in of an existing user', () => {
    users
      .given([created])
      .when({ type: 'recordFailedSignIn', reason: 'wrong_password' })
      .then([{ type: 'user.sign_in_failed', data: { userId, reason: 'wrong_password' } }]);
  });

  it('answers 404 for commands on a user that does not exist', () => {
    users.given([]).when({ type: 'changePassword', passwordHash: 'h', reason: 'change' }).thenThrows('NOT_FOUND', 404);
    users.given([]).when({ type: 'recordFailedSignIn', reason: 'wrong_password' }).thenThrows('NOT_FOUND', 404);
  });
});

describe('role decider', () => {
  it('creates a role once', () => {
    roles
      .given([])
      .when({ type: 'createRole', roleId, name: 'Administrator', admin: true, systemKey: 'admin' })
      .then([{ type: 'role.created', data: { roleId, name: 'Administrator', admin: true, parentId: null, systemKey: 'admin' } }]);
    roles
      .given([{ type: 'role.created', data: { roleId, name: 'Administrator', admin: true, parentId: null, systemKey: 'admin' } }])
      .when({ type: 'createRole', roleId, name: 'Again', admin: false })
      .thenThrows('CONFLICT', 409);
  });
});
