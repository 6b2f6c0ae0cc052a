import { describe, expect, it } from 'vitest';
import { normalizeRule } from '../../../domain/access/permissionRule.ts';
import { policyDecider, type PolicyEvent } from '../../../domain/access/policy.ts';
import { roleDecider, type RoleEvent } from '../../../domain/identity/role.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { deciderSpecification } from '../../domain/deciderSpecification.ts';

const roles = deciderSpecification(roleDecider);
const policies = deciderSpecification(policyDecider);
const roleId = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const parentId = '1c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const policyId = '2c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const permissionId = '3c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const roleCreated = (systemKey: string | null = null, admin = false): RoleEvent => ({
  type: 'role.created',
  data: { roleId, name: 'Editors', admin, parentId: null, systemKey },
});
const noHolders = { users: 0, childRoles: 0, apiKeys: 0 };

describe('role decider', () => {
  it('re-parents, renames and flags, emitting only what changed', () => {
    roles
      .given([roleCreated()])
      .when({ type: 'updateRole', changes: { name: 'Editors', parentId, admin: true }, parentAncestry: [parentId] })
      .then([{ type: 'role.updated', data: { roleId, changes: { parentId, admin: true } } }]);
    roles.given([roleCreated()]).when({ type: 'updateRole', changes: { name: 'Editors', parentId: null } }).thenNothing();
  });

  it('refuses a parent that is the role itself or one of its descendants', () => {
    roles.given([roleCreated()]).when({ type: 'updateRole', changes: { parentId: roleId }, parentAncestry: [roleId] }).thenThrows('VALIDATION_FAILED', 400, ['body', 'parentId']);
    roles
      .given([roleCreated()])
      .when({ type: 'updateRole', changes: { parentId }, parentAncestry: [parentId, 'a', roleId] })
      .thenThrows('VALIDATION_FAILED', 400, ['body', 'parentId']);
  });

  it('keeps the administrator role admin and the public and subscriber roles not admin', () => {
    roles.given([roleCreated('admin', true)]).when({ type: 'updateRole', changes: { admin: false } }).thenThrows('VALIDATION_FAILED', 400, ['body', 'admin']);
    roles.given([roleCreated('public')]).when({ type: 'updateRole', changes: { admin: true } }).thenThrows('VALIDATION_FAILED', 400, ['body', 'admin']);
    roles.given([roleCreated('subscriber')]).when({ type: 'updateRole', changes: { admin: true } }).thenThrows('VALIDATION_FAILED', 400, ['body', 'admin']);
  });

  it('deletes only unused, non-system roles, and only once', () => {
    roles.given([roleCreated()]).when({ type: 'deleteRole', holders: noHolders }).then([{ type: 'role.deleted', data: { roleId } }]);
    roles.given([roleCreated()]).when({ type: 'deleteRole', holders: { ...noHolders, apiKeys: 1 } }).thenThrows('CONFLICT', 409);
    roles.given([roleCreated('public')]).when({ type: 'deleteRole', holders: noHolders }).thenThrows('CONFLICT', 409);
    roles.given([roleCreated(), { type: 'role.deleted', data: { roleId } }]).when({ type: 'deleteRole', holders: noHolders }).thenThrows('NOT_FOUND', 404);
    roles.given([]).when({ type: 'updateRole', changes: { name: 'x' } }).thenThrows('NOT_FOUND', 404);
  });
});

describe('policy decider', () => {
  const created: PolicyEvent = { type: 'policy.created', data: { policyId, name: 'Editors', description: null } };
  const rule = { collection: 'articles', action: 'read', fields: ['*'], conditions: null };
  const added: PolicyEvent = { type: 'policy.permission_added', data: { policyId, permissionId, ...rule } };
  const target = { kind: 'role' as const, id: roleId };

  it('adds and removes rules', () => {
    policies.given([created]).when({ type: 'addPermission', permissionId, rule }).then([added]);
    policies.given([created, added]).when({ type: 'removePermission', permissionId }).then([{ type: 'policy.permission_removed', data: { policyId, permissionId } }]);
    policies.given([created]).when({ type: 'removePermission', permissionId }).thenThrows('NOT_FOUND', 404);
  });

  it('attaches once and detaches only what is attached', () => {
    const attached: PolicyEvent = { type: 'policy.attached', data: { policyId, target } };
    policies.given([created]).when({ type: 'attachPolicy', target }).then([attached]);
    policies.given([created, attached]).when({ type: 'attachPolicy', target }).thenNothing();
    policies.given([created, attached]).when({ type: 'detachPolicy', target }).then([{ type: 'policy.detached', data: { policyId, target } }]);
    policies.given([created]).when({ type: 'detachPolicy', target: { kind: 'team', id: roleId } }).thenThrows('NOT_FOUND', 404);
  });

  it('answers 404 for everything on a deleted or unknown policy', () => {
    const deleted: PolicyEvent = { type: 'policy.deleted', data: { policyId } };
    policies.given([created, deleted]).when({ type: 'attachPolicy', target }).thenThrows('NOT_FOUND', 404);
    policies.given([]).when({ type: 'updatePolicy', changes: { name: 'x' } }).thenThrows('NOT_FOUND', 404);
    policies.given([created]).when({ type: 'createPolicy', policyId, name: 'again' }).thenThrows('CONFLICT', 409);
  });
});

describe('permission rule shape', () => {
  function pathOf(input: Parameters<typeof normalizeRule>[0]): unknown {
    try {
      normalizeRule(input);
    } catch (error) {
      return (error as AppError).path;
    }
    return null;
  }

  it('normalises field lists and drops empty conditions', () => {
    expect(normalizeRule({ collection: 'a', action: 'read', fields: ['x', 'x', 'y'] })).toEqual({ collection: 'a', action: 'read', fields: ['x', 'y'], conditions: null });
    expect(normalizeRule({ collection: 'a', action: 'update', fields: ['x', '*'], conditions: {} })).toEqual({ collection: 'a', action: 'update', fields: ['*'], conditions: null });
    expect(normalizeRule({ collection: 'a', action: 'delete' }).fields).toEqual(['*']);
    expect(normalizeRule({ action: 'review:legal' })).toEqual({ collection: null, action: 'review:legal', fields: [], conditions: null });
    expect(normalizeRule({ collection: 'a', action: 'read_decrypted', fields: ['ssn'] }).fields).toEqual(['ssn']);
  });

  it('refuses unknown actions and capabilities given a collection, fields or conditions', () => {
    expect(pathOf({ collection: 'a', action: 'publish' })).toEqual(['body', 'action']);
    expect(pathOf({ action: 'review:' })).toEqual(['body', 'action']);
    expect(pathOf({ action: 'read' })).toEqual(['body', 'collection']);
    expect(pathOf({ collection: 'a', action: 'media:create' })).toEqual(['body', 'collection']);
    expect(pathOf({ action: 'read_decrypted', conditions: { a: 1 } })).toEqual(['body', 'conditions']);
    expect(pathOf({ action: 'cdc:subscribe', fields: ['a'] })).toEqual(['body', 'fields']);
  });
});
