// Events of the identity context (users, roles, sessions, teams, API keys, email tokens, trusted
// issuers, subscriber grants, failed sign-ins of unknown emails): the zod schema of each event's
// data, and the event types inferred from them. The event store checks every event it reads
// against these (domain/shared/eventCatalogue.ts).
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

const nullableText = z.string().nullable();

// API keys

export const apiKeyEventSchemas = {
  'api_key.created': z.object({
    apiKeyId: z.string(),
    name: z.string(),
    keyHash: z.string(),
    prefix: z.string(),
    userId: nullableText,
    roleId: nullableText,
    /** When the key stops working (ISO 8601); absent or null: never. Keys created before expiry existed have none. */
    expiresAt: nullableText.optional(),
  }),
  'api_key.revoked': z.object({ apiKeyId: z.string() }),
};
export type ApiKeyEvent = EventOf<typeof apiKeyEventSchemas>;

// Email tokens

export const EMAIL_TOKEN_PURPOSES = ['verify_email', 'reset_password', 'invite'] as const;
export type EmailTokenPurpose = (typeof EMAIL_TOKEN_PURPOSES)[number];

export const emailTokenEventSchemas = {
  'email_token.issued': z.object({
    tokenId: z.string(),
    userId: z.string(),
    purpose: z.enum(EMAIL_TOKEN_PURPOSES),
    tokenHash: z.string(),
    expiresAt: z.string(),
  }),
  'email_token.consumed': z.object({ tokenId: z.string(), userId: z.string(), purpose: z.enum(EMAIL_TOKEN_PURPOSES) }),
};
export type EmailTokenEvent = EventOf<typeof emailTokenEventSchemas>;

// Trusted issuers

/** Asymmetric signature algorithms only: a shared-secret (HS*) or unsigned (none) token is never trusted. */
export const ISSUER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
export type IssuerAlgorithm = (typeof ISSUER_ALGORITHMS)[number];

const roleTargetSchema = z.union([z.object({ roleId: z.string() }), z.object({ systemKey: z.string() })]);
export type RoleTarget = z.infer<typeof roleTargetSchema>;

export const issuerConfigSchema = z.object({
  issuer: z.string(),
  jwksUri: nullableText,
  discoveryUrl: nullableText,
  audience: z.string(),
  algorithms: z.array(z.enum(ISSUER_ALGORITHMS)),
  /** Claim names (dotted paths allowed) holding the email, the roles, the site and the external id. */
  claimMapping: z.object({ email: z.string(), roles: z.string(), siteId: z.string().optional(), externalId: z.string().optional() }),
  /** Role claim value → role of the site. */
  roleMapping: z.record(z.string(), roleTargetSchema),
  defaultRoleId: nullableText,
  jitProvisioning: z.boolean(),
  clockSkewSeconds: z.number(),
  enabled: z.boolean(),
});
export type IssuerConfig = z.infer<typeof issuerConfigSchema>;

export const issuerEventSchemas = {
  'issuer.created': z.object({ issuerId: z.string(), config: issuerConfigSchema }),
  'issuer.updated': z.object({ issuerId: z.string(), config: issuerConfigSchema }),
  'issuer.deleted': z.object({ issuerId: z.string() }),
};
export type IssuerEvent = EventOf<typeof issuerEventSchemas>;

// Roles

export const roleChangesSchema = z.object({
  name: z.string().optional(),
  description: nullableText.optional(),
  admin: z.boolean().optional(),
  parentId: nullableText.optional(),
});
export type RoleChanges = z.infer<typeof roleChangesSchema>;

export const roleEventSchemas = {
  'role.created': z.object({
    roleId: z.string(),
    name: z.string(),
    admin: z.boolean(),
    parentId: nullableText,
    systemKey: nullableText,
    description: nullableText.optional(),
  }),
  'role.updated': z.object({ roleId: z.string(), changes: roleChangesSchema }),
  'role.deleted': z.object({ roleId: z.string() }),
};
export type RoleEvent = EventOf<typeof roleEventSchemas>;

// Sessions

/** Why a session ended: the user's own logout or revocation, an administrator, a credential change. */
export const SESSION_REVOKE_REASONS = [
  'logout',
  'token_reuse',
  'password_changed',
  'password_reset',
  'revoked',
  'expired',
  'user_deleted',
  'user_suspended',
] as const;
export type SessionRevokeReason = (typeof SESSION_REVOKE_REASONS)[number];

export const sessionEventSchemas = {
  'session.started': z.object({
    sessionId: z.string(),
    userId: z.string(),
    refreshTokenHash: z.string(),
    expiresAt: z.string(),
    userAgent: nullableText,
    ip: nullableText,
    impersonatorId: nullableText.optional(),
  }),
  'session.refreshed': z.object({ sessionId: z.string(), previousTokenHash: z.string(), refreshTokenHash: z.string(), expiresAt: z.string() }),
  'session.revoked': z.object({ sessionId: z.string(), reason: z.enum(SESSION_REVOKE_REASONS) }),
};
export type SessionEvent = EventOf<typeof sessionEventSchemas>;

// Subscriber access

export const subscriberAccessEventSchemas = {
  'subscriber_access.granted': z.object({ collection: z.string() }),
  'subscriber_access.revoked': z.object({ collection: z.string() }),
};
export type SubscriberAccessEvent = EventOf<typeof subscriberAccessEventSchemas>;

// Teams

export const teamChangesSchema = z.object({
  name: z.string().optional(),
  description: nullableText.optional(),
  members: z.array(z.string()).optional(),
});
export type TeamChanges = z.infer<typeof teamChangesSchema>;

export const teamEventSchemas = {
  'team.created': z.object({ teamId: z.string(), name: z.string(), description: nullableText, members: z.array(z.string()) }),
  'team.updated': z.object({ teamId: z.string(), changes: teamChangesSchema }),
  'team.deleted': z.object({ teamId: z.string() }),
};
export type TeamEvent = EventOf<typeof teamEventSchemas>;

// Users

export const PASSWORD_CHANGE_REASONS = ['change', 'reset', 'invite', 'admin'] as const;
export type PasswordChangeReason = (typeof PASSWORD_CHANGE_REASONS)[number];

/** What an administrator may change on a user (`user.updated` carries only the changed keys). */
export const userChangesSchema = z.object({
  email: z.string().optional(),
  firstName: nullableText.optional(),
  lastName: nullableText.optional(),
  avatar: nullableText.optional(),
  roleId: nullableText.optional(),
  status: z.enum(['active', 'suspended']).optional(),
});
export type UserChanges = z.infer<typeof userChangesSchema>;

/** Preferences are a flat object; `saveAction` is the one key the service knows. */
const preferencesSchema = z.record(z.string(), z.unknown());
export type Preferences = z.infer<typeof preferencesSchema>;

/**
 * A failed sign-in event stands for one attempt, or, with `failures`, for that many attempts of one
 * account and client IP in the window [from, to) past the events each attempt of the window got
 * (src/modules/auth/failedSignIns.ts). Absent means one: events written before the field stay valid.
 */
const failureCount = {
  failures: z.number().int().min(1).optional(),
  window: z.object({ from: z.string(), to: z.string() }).optional(),
};

/** What a failed sign-in event that counts several attempts adds to its data. */
export interface FailedSignInCount {
  failures: number;
  window: { from: string; to: string };
}

export const userEventSchemas = {
  'user.created': z.object({
    userId: z.string(),
    email: z.string(),
    passwordHash: nullableText,
    firstName: nullableText,
    lastName: nullableText,
    roleId: nullableText,
    status: z.enum(['active', 'invited', 'unverified', 'suspended']),
  }),
  'user.password_changed': z.object({
    userId: z.string(),
    passwordHash: z.string(),
    tokenVersion: z.number(),
    reason: z.enum(PASSWORD_CHANGE_REASONS),
  }),
  'user.sign_in_failed': z.object({ userId: z.string(), reason: z.enum(['wrong_password', 'inactive']), ...failureCount }),
  'user.email_verified': z.object({ userId: z.string(), email: z.string() }),
  'user.updated': z.object({ userId: z.string(), changes: userChangesSchema }),
  'user.deleted': z.object({ userId: z.string() }),
  'user.preferences_updated': z.object({ userId: z.string(), changes: preferencesSchema }),
  'user.external_identity_linked': z.object({ userId: z.string(), issuerId: z.string(), externalId: z.string() }),
  'user.impersonated': z.object({ userId: z.string(), impersonatorId: z.string(), sessionId: z.string() }),
};
export type UserEvent = EventOf<typeof userEventSchemas>;

// Sign-ins

export const authEventSchemas = {
  /** A sign-in with an email no user of the site has (src/modules/auth): its hash only, never the email. */
  'auth.sign_in_failed': z.object({ emailHash: z.string(), reason: z.enum(['unknown_email']), ...failureCount }),
};
export type AuthEvent = EventOf<typeof authEventSchemas>;

/** Every event type of the identity context with the schema of its data. */
export const identityEventSchemas = {
  ...apiKeyEventSchemas,
  ...emailTokenEventSchemas,
  ...issuerEventSchemas,
  ...roleEventSchemas,
  ...sessionEventSchemas,
  ...subscriberAccessEventSchemas,
  ...teamEventSchemas,
  ...userEventSchemas,
  ...authEventSchemas,
};
