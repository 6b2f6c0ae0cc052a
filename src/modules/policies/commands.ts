// The policies area's commands (the command registry, docs/architecture.md): create, update, delete;
// add and remove permission rules; attach to and detach from roles, users and teams. Every one
// changes who may do what: each is dangerous.
import { z } from 'zod';
import type { AttachmentTarget } from '../../../domain/access/policy.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { addPermission, attachPolicy, createPolicy, deletePolicy, detachPolicy, removePermission, updatePolicy } from './handlers.ts';

const policyFields = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullable(),
});
export const createPolicyBody = policyFields.partial({ description: true }).strict();
export const updatePolicyBody = policyFields.partial().strict();
export const permissionRuleBody = z
  .object({
    collection: z.string().min(1).max(64).nullable().optional(),
    action: z.string().min(1).max(100),
    fields: z.array(z.string().min(1).max(64)).max(500).nullable().optional(),
    conditions: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .strict();
export const removePermissionsBody = z.object({ ids: z.array(uuidSchema).min(1).max(500) }).strict();
export const attachmentTargetBody = z.object({ roleId: uuidSchema, userId: uuidSchema, teamId: uuidSchema }).partial().strict();

const policyId = (id: string) => uuidOr404(id, 'Policy');

function targetOf(body: z.infer<typeof attachmentTargetBody>): AttachmentTarget {
  const targets: AttachmentTarget[] = [];
  if (body.roleId) targets.push({ kind: 'role', id: body.roleId });
  if (body.userId) targets.push({ kind: 'user', id: body.userId });
  if (body.teamId) targets.push({ kind: 'team', id: body.teamId });
  if (targets.length !== 1) throw new AppError('VALIDATION_FAILED', 'Send exactly one of roleId, userId or teamId', { path: ['body'] });
  return targets[0]!;
}

const create = defineCommand({
  name: 'policies.create',
  description: 'Create a policy (its permission rules are added one by one).',
  input: createPolicyBody,
  access: 'siteAdmin',
  // An empty policy grants nothing, but creating one is the first step of a change of access.
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => createPolicy(context, siteId, input, metadata),
});

const update = defineCommand({
  name: 'policies.update',
  description: "Change a policy's name or description.",
  input: updatePolicyBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updatePolicy(context, siteId, policyId(id), changes, metadata);
  },
});

const deleteCommand = defineCommand({
  name: 'policies.delete',
  description: 'Delete a policy: whoever held it through a role, user or team loses its permissions.',
  input: z.object({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deletePolicy(context, siteId, policyId(input.id), metadata),
});

const addPermissionCommand = defineCommand({
  name: 'policies.addPermission',
  description: 'Add a permission rule to a policy: a collection, an action, the fields and the conditions on rows.',
  input: permissionRuleBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...rule } = input;
    return addPermission(context, siteId, policyId(id), rule, metadata);
  },
});

const removePermissionCommand = defineCommand({
  name: 'policies.removePermission',
  description: 'Remove one permission rule from a policy.',
  input: z.object({ id: z.string(), permissionId: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const id = policyId(input.id);
    await removePermission(context, siteId, id, uuidOr404(input.permissionId, 'Permission'), metadata);
  },
});

const removePermissionsCommand = defineCommand({
  name: 'policies.removePermissions',
  description: 'Remove several permission rules from a policy at once (all or none: an unknown id removes nothing).',
  input: removePermissionsBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => removePermission(context, siteId, policyId(input.id), input.ids, metadata),
});

const attach = defineCommand({
  name: 'policies.attach',
  description: 'Attach a policy to a role, a user or a team (exactly one of roleId, userId, teamId).',
  input: attachmentTargetBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...target } = input;
    const policy = policyId(id);
    return attachPolicy(context, siteId, policy, targetOf(target), metadata);
  },
});

const detach = defineCommand({
  name: 'policies.detach',
  description: 'Detach a policy from a role, a user or a team (exactly one of roleId, userId, teamId).',
  input: attachmentTargetBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: true,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...target } = input;
    const policy = policyId(id);
    return detachPolicy(context, siteId, policy, targetOf(target), metadata);
  },
});

export const policyCommands = {
  create,
  update,
  delete: deleteCommand,
  addPermission: addPermissionCommand,
  removePermission: removePermissionCommand,
  removePermissions: removePermissionsCommand,
  attach,
  detach,
};
