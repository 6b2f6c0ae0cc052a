// The shape of a trusted issuer at the edge. Invariants across fields (exactly one of jwksUri and
// discoveryUrl) are checked by the domain on the merged result; both answer 422 VALIDATION_FAILED.
import { z } from 'zod';
import { ISSUER_ALGORITHMS, MAX_CLOCK_SKEW_SECONDS } from '../../../domain/identity/issuer.ts';
import { uuidSchema } from '../../../domain/shared/uuid.ts';
import { ACCESS_TOKEN_ISSUER } from '../../auth/accessTokens.ts';

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const claimName = z.string().regex(/^[A-Za-z0-9_:/.-]{1,200}$/, 'a claim name (dotted path allowed)');
const roleTarget = z.union([z.object({ roleId: uuidSchema }).strict(), z.object({ systemKey: z.string().min(1).max(64) }).strict()]);

export const issuerFields = {
  issuer: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .refine((value) => value !== ACCESS_TOKEN_ISSUER, `"${ACCESS_TOKEN_ISSUER}" is the service's own issuer`),
  jwksUri: httpUrl.nullable(),
  discoveryUrl: httpUrl.nullable(),
  audience: z.string().min(1).max(2048),
  algorithms: z.array(z.enum(ISSUER_ALGORITHMS, { error: 'asymmetric algorithms only (RS*, PS*, ES*); HS* and none are refused' })).min(1).max(ISSUER_ALGORITHMS.length),
  claimMapping: z
    .object({ email: claimName.default('email'), roles: claimName.default('roles'), siteId: claimName.optional(), externalId: claimName.optional() })
    .strict(),
  roleMapping: z.record(z.string().min(1).max(200), roleTarget).refine((value) => Object.keys(value).length <= 200, 'at most 200 mappings'),
  defaultRoleId: uuidSchema.nullable(),
  jitProvisioning: z.boolean(),
  clockSkewSeconds: z.number().int().min(0).max(MAX_CLOCK_SKEW_SECONDS),
  enabled: z.boolean(),
};

export const createIssuerBody = z
  .object({
    ...issuerFields,
    jwksUri: issuerFields.jwksUri.default(null),
    discoveryUrl: issuerFields.discoveryUrl.default(null),
    claimMapping: issuerFields.claimMapping.default({ email: 'email', roles: 'roles' }),
    roleMapping: issuerFields.roleMapping.default({}),
    defaultRoleId: issuerFields.defaultRoleId.default(null),
    jitProvisioning: issuerFields.jitProvisioning.default(false),
    clockSkewSeconds: issuerFields.clockSkewSeconds.default(60),
    enabled: issuerFields.enabled.default(true),
  })
  .strict();

export const updateIssuerBody = z.object(issuerFields).partial().strict();

export const issuerSchema = z.object({
  id: z.string(),
  issuer: z.string(),
  jwksUri: z.string().nullable(),
  discoveryUrl: z.string().nullable(),
  audience: z.string(),
  algorithms: z.array(z.string()),
  claimMapping: z.record(z.string(), z.string()),
  roleMapping: z.record(z.string(), z.record(z.string(), z.string())),
  defaultRoleId: z.string().nullable(),
  jitProvisioning: z.boolean(),
  clockSkewSeconds: z.number(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
