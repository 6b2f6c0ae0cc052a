// Users, teams, API keys, trusted issuers, roles, policies, permissions and the audit log.
import { z } from 'zod';
import { teamSchema } from '../../../modules/teams/schemas.ts';
import { userSchema } from '../../../modules/users/routes.ts';
import type { OperationCatalogue } from '../operationEntry.ts';
import { noContent, openObject, pageMeta, timestamp } from './shapes.ts';

/** The users routes' own shape, its times documented as ISO 8601. */
const user = userSchema.extend({ createdAt: timestamp, updatedAt: timestamp });
const policy = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  attachments: z.object({ roles: z.array(z.string()), users: z.array(z.string()), teams: z.array(z.string()) }),
  permissionCount: z.number(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
const auditEntry = z
  .object({ eventId: z.string(), type: z.string(), occurredAt: timestamp })
  .catchall(z.unknown())
  .describe('An entry of the audit log: the event, its stream, its actor and what it changed');

export const identityOperations: OperationCatalogue = {
  'GET /users/subscriber-access': { summary: 'List the collections subscribers may read' },
  'POST /users/subscriber-access': {
    summary: 'Grant subscribers read on a collection',
    description: 'Answers 201 when the grant is new, 200 when it existed.',
  },
  'DELETE /users/subscriber-access/{collection}': { summary: 'Revoke subscribers’ read on a collection', response: noContent('The grant is revoked.') },
  'GET /users': { summary: 'List the site’s users', response: { data: z.array(user), meta: pageMeta } },
  'POST /users': { summary: 'Create a user', errors: ['CONFLICT'] },
  'POST /users/invite': {
    summary: 'Invite a user by email',
    description: 'Creates the user (201) or invites an existing, not yet active one again (200); the invitation email carries a token for POST /auth/accept-invite.',
    errors: ['CONFLICT'],
    response: { data: user },
  },
  'GET /users/{id}': { summary: 'One user', response: { data: user } },
  'PATCH /users/{id}': { summary: 'Update a user (name, role, status, …)', errors: ['CONFLICT'], response: { data: user } },
  'DELETE /users/{id}': { summary: 'Delete a user', description: 'Their sessions are revoked.', response: noContent('The user is deleted.') },
  'POST /users/{id}/impersonate': {
    summary: 'Start a session as another user',
    description: 'Audited with the administrator as the actor; the session records the caller’s IP and user agent.',
    response: { data: z.object({ token: z.string(), expires: z.number() }).catchall(z.unknown()) },
  },
  'GET /users/{id}/sessions': { summary: 'A user’s active sessions' },
  'DELETE /sessions/{id}': { summary: 'Revoke a session', response: noContent('The session is revoked.') },
  'GET /teams': { summary: 'List teams', response: { data: z.array(teamSchema), meta: pageMeta } },
  'POST /teams': { summary: 'Create a team', errors: ['CONFLICT'] },
  'GET /teams/{id}': { summary: 'One team', response: { data: teamSchema } },
  'PATCH /teams/{id}': { summary: 'Update a team’s name, description or members', errors: ['CONFLICT'] },
  'DELETE /teams/{id}': { summary: 'Delete a team', response: noContent('The team is deleted.') },
  'POST /api-keys': {
    summary: 'Create an API key',
    description: 'The key (`svk_…`) is answered once, in `key`; only its prefix is kept. A key is bound to a user or to a role.',
  },
  'GET /api-keys': { summary: 'List API keys (never the keys themselves)' },
  'DELETE /api-keys/{id}': { summary: 'Revoke an API key', response: noContent('The key is revoked.') },
  'GET /admin/auth/issuers': { summary: 'List trusted external issuers' },
  'POST /admin/auth/issuers': {
    summary: 'Trust an external identity provider',
    description: 'HS* and `none` algorithms are refused (422).',
    unprocessable: true,
    errors: ['ISSUER_ALREADY_EXISTS'],
  },
  'GET /admin/auth/issuers/{id}': {
    summary: 'One trusted issuer',
    response: { data: z.object({ id: z.string(), issuer: z.string() }).catchall(z.unknown()) },
  },
  'PATCH /admin/auth/issuers/{id}': { summary: 'Update a trusted issuer', unprocessable: true, errors: ['ISSUER_ALREADY_EXISTS'] },
  'DELETE /admin/auth/issuers/{id}': { summary: 'Stop trusting an issuer', response: noContent('The issuer is removed.') },
  'GET /roles': { summary: 'List roles', description: 'The site’s roles, its public role (created with the site) included.' },
  'POST /roles': { summary: 'Create a role', errors: ['CONFLICT'] },
  'GET /roles/{id}': { summary: 'One role' },
  'PATCH /roles/{id}': { summary: 'Update a role (name, parent, admin flag, …)', errors: ['CONFLICT'] },
  'DELETE /roles/{id}': { summary: 'Delete a role', errors: ['CONFLICT'], response: noContent('The role is deleted.') },
  'GET /policies': { summary: 'List policies', response: { data: z.array(policy), meta: pageMeta } },
  'POST /policies': { summary: 'Create a policy', errors: ['CONFLICT'] },
  'GET /policies/{id}': { summary: 'One policy', response: { data: policy } },
  'PATCH /policies/{id}': { summary: 'Update a policy', errors: ['CONFLICT'] },
  'DELETE /policies/{id}': { summary: 'Delete a policy', response: noContent('The policy is deleted.') },
  'GET /policies/{id}/permissions': { summary: 'A policy’s permission rules' },
  'POST /policies/{id}/permissions': { summary: 'Add a permission rule to a policy' },
  'DELETE /policies/{id}/permissions': { summary: 'Remove every permission rule of a policy', response: noContent('The rules are removed.') },
  'DELETE /policies/{id}/permissions/{permissionId}': { summary: 'Remove one permission rule', response: noContent('The rule is removed.') },
  'POST /policies/{id}/attach': { summary: 'Attach a policy to a role, a user or a team' },
  'POST /policies/{id}/detach': { summary: 'Detach a policy from a role, a user or a team' },
  'GET /permissions/me': {
    summary: 'The caller’s effective permission matrix',
    description: 'Anonymous callers get the public role’s matrix.',
    response: {
      data: z
        .object({
          principal: z.object({ kind: z.string(), userId: z.string().nullable(), roleId: z.string().nullable(), admin: z.boolean() }),
        })
        .catchall(z.unknown())
        .describe('The principal, and per collection and action what it may do'),
    },
  },
  'POST /permissions/check': {
    summary: 'Evaluate a permission rule (debugging)',
    response: { data: openObject.describe('Whether the rule allows the action, and why') },
  },
  'GET /audit': {
    summary: 'The audit log',
    description: 'Filterable (`filter[...]`, the list filter of the spec) and paged.',
    errors: ['VALIDATION'],
    response: { data: z.array(auditEntry), meta: pageMeta },
  },
  'GET /audit/{eventId}': { summary: 'One audit entry', response: { data: auditEntry } },
  'GET /audit/verify': {
    summary: 'Verify the site’s hash chains and signed checkpoints',
    response: { data: openObject.describe('What was checked and any problem found (a broken chain, a bad signature)') },
  },
  'GET /audit/checkpoints': {
    summary: 'The signed checkpoints of the log',
    response: {
      data: z.array(
        z.object({
          seq: z.number(),
          position: z.number(),
          eventCount: z.number(),
          streamCount: z.number(),
          headHash: z.string(),
          previousDigest: z.string().nullable(),
          digest: z.string(),
          createdAt: timestamp,
          keyId: z.string(),
          algorithm: z.string(),
          payload: z.string(),
          signature: z.string(),
        }),
      ),
      meta: z.object({ total: z.number(), page: z.number(), pageSize: z.number(), publicKey: openObject.describe('keyId, algorithm, pem, jwk') }),
    },
  },
};
