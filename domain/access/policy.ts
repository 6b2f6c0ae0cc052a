// A policy of one site: a named set of permission rules, attached to roles, users or teams. What a
// principal may do is the union of the rules of every policy that reaches it (src/access).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type AttachmentKind, type AttachmentTarget, POLICY_EVENT_TYPES, type PolicyChanges, type PolicyEvent, policyEventSchemas } from './events.ts';
import type { PermissionRule } from './permissionRule.ts';

export { POLICY_EVENT_TYPES, type AttachmentKind, type AttachmentTarget, type PolicyChanges, type PolicyEvent };

export const MAX_RULES_PER_POLICY = 500;

export type PolicyCommand =
  | { type: 'createPolicy'; policyId: string; name: string; description?: string | null }
  | { type: 'updatePolicy'; changes: PolicyChanges }
  | { type: 'deletePolicy' }
  | { type: 'addPermission'; permissionId: string; rule: PermissionRule }
  | { type: 'removePermission'; permissionId: string }
  | { type: 'attachPolicy'; target: AttachmentTarget }
  | { type: 'detachPolicy'; target: AttachmentTarget };

export interface PolicyState {
  status: 'absent' | 'active' | 'deleted';
  policyId: string | null;
  name: string | null;
  description: string | null;
  permissionIds: ReadonlySet<string>;
  /** `kind:id` of every target the policy is attached to. */
  attachments: ReadonlySet<string>;
}

const keyOf = (target: AttachmentTarget) => `${target.kind}:${target.id}`;
const notFound = () => new AppError('NOT_FOUND', 'Policy not found');

export const policyDecider: Decider<PolicyState, PolicyCommand, PolicyEvent> = {
  eventTypes: eventTypesOf(policyEventSchemas),
  initialState: () => ({ status: 'absent', policyId: null, name: null, description: null, permissionIds: new Set(), attachments: new Set() }),
  evolve(state, event) {
    switch (event.type) {
      case 'policy.created':
        return { ...state, status: 'active', policyId: event.data.policyId, name: event.data.name, description: event.data.description };
      case 'policy.updated':
        return { ...state, ...event.data.changes };
      case 'policy.deleted':
        return { ...state, status: 'deleted', permissionIds: new Set(), attachments: new Set() };
      case 'policy.permission_added':
        return { ...state, permissionIds: new Set([...state.permissionIds, event.data.permissionId]) };
      case 'policy.permission_removed':
        return { ...state, permissionIds: new Set([...state.permissionIds].filter((id) => id !== event.data.permissionId)) };
      case 'policy.attached':
        return { ...state, attachments: new Set([...state.attachments, keyOf(event.data.target)]) };
      case 'policy.detached':
        return { ...state, attachments: new Set([...state.attachments].filter((key) => key !== keyOf(event.data.target))) };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'createPolicy') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'Policy already exists');
      return [{ type: 'policy.created', data: { policyId: command.policyId, name: command.name, description: command.description ?? null } }];
    }
    if (state.status !== 'active') throw notFound();
    const policyId = state.policyId!;
    switch (command.type) {
      case 'updatePolicy': {
        const changes: PolicyChanges = {};
        if (command.changes.name !== undefined && command.changes.name !== state.name) changes.name = command.changes.name;
        if (command.changes.description !== undefined && command.changes.description !== state.description) {
          changes.description = command.changes.description;
        }
        return Object.keys(changes).length === 0 ? [] : [{ type: 'policy.updated', data: { policyId, changes } }];
      }
      case 'deletePolicy':
        return [{ type: 'policy.deleted', data: { policyId } }];
      case 'addPermission':
        if (state.permissionIds.has(command.permissionId)) throw new AppError('CONFLICT', 'Permission already exists');
        if (state.permissionIds.size >= MAX_RULES_PER_POLICY) {
          throw new AppError('VALIDATION_FAILED', `A policy holds at most ${MAX_RULES_PER_POLICY} permission rules`, { path: ['body'] });
        }
        return [{ type: 'policy.permission_added', data: { policyId, permissionId: command.permissionId, ...command.rule } }];
      case 'removePermission':
        if (!state.permissionIds.has(command.permissionId)) throw new AppError('NOT_FOUND', 'Permission not found');
        return [{ type: 'policy.permission_removed', data: { policyId, permissionId: command.permissionId } }];
      case 'attachPolicy':
        // Attaching twice is a no-op: the attachment already holds.
        return state.attachments.has(keyOf(command.target)) ? [] : [{ type: 'policy.attached', data: { policyId, target: command.target } }];
      case 'detachPolicy':
        if (!state.attachments.has(keyOf(command.target))) {
          throw new AppError('NOT_FOUND', `The policy is not attached to this ${command.target.kind}`);
        }
        return [{ type: 'policy.detached', data: { policyId, target: command.target } }];
    }
  },
};
