// Business rules of the identity aggregates: given events, when a command, then events or an error.
import { describe, expect, it } from 'vitest';
import { apiKeyDecider } from '../../../domain/identity/apiKey.ts';
import { emailTokenDecider, type EmailTokenEvent } from '../../../domain/identity/emailToken.ts';
import { issuerDecider, type IssuerConfig } from '../../../domain/identity/issuer.ts';
import { subscriberAccessDecider } from '../../../domain/identity/subscriberAccess.ts';
import { teamDecider } from '../../../domain/identity/team.ts';
import { userDecider, type UserEvent } from '../../../domain/identity/user.ts';
import { eventsOf, type Decider, type NewEvent } from '../../../domain/shared/events.ts';
import { deterministicUuid } from '../../../src/auth/deterministicId.ts';
import { appErrorThrownBy } from '../../support/appErrors.ts';

function given<State, Command, Event extends NewEvent>(decider: Decider<State, Command, Event>, events: { type: string; data: unknown }[]) {
  const state = eventsOf(decider, events).reduce((current, event) => decider.evolve(current, event), decider.initialState());
  return {
    when: (command: Command) => decider.decide(command, state),
  };
}

const issued: EmailTokenEvent = {
  type: 'email_token.issued',
  data: { tokenId: 't1', userId: 'u1', purpose: 'reset_password', tokenHash: 'h1', expiresAt: '2030-01-01T01:00:00.000Z' },
};
const before = new Date('2030-01-01T00:30:00Z');

describe('email token', () => {
  it('is consumed once with the right hash and purpose before it expires', () => {
    expect(given(emailTokenDecider, [issued]).when({ type: 'consumeEmailToken', presentedTokenHash: 'h1', purpose: 'reset_password', now: before })).toEqual([
      { type: 'email_token.consumed', data: { tokenId: 't1', userId: 'u1', purpose: 'reset_password' } },
    ]);
  });

  it('refuses a second use, an expired token, another purpose and another hash', () => {
    const consumed = [issued, { type: 'email_token.consumed', data: { tokenId: 't1', userId: 'u1', purpose: 'reset_password' } }];
    const reason = (events: { type: string; data: unknown }[], command: Parameters<typeof emailTokenDecider.decide>[0]) =>
      appErrorThrownBy(() => given(emailTokenDecider, events).when(command)).extensions.reason;
    expect(reason(consumed, { type: 'consumeEmailToken', presentedTokenHash: 'h1', purpose: 'reset_password', now: before })).toBe('used');
    expect(reason([issued], { type: 'consumeEmailToken', presentedTokenHash: 'h1', purpose: 'reset_password', now: new Date('2030-01-01T01:00:00Z') })).toBe('expired');
    expect(reason([issued], { type: 'consumeEmailToken', presentedTokenHash: 'h1', purpose: 'verify_email', now: before })).toBe('invalid');
    expect(reason([issued], { type: 'consumeEmailToken', presentedTokenHash: 'h2', purpose: 'reset_password', now: before })).toBe('invalid');
    expect(reason([], { type: 'consumeEmailToken', presentedTokenHash: 'h1', purpose: 'reset_password', now: before })).toBe('invalid');
  });
});

const created: UserEvent = {
  type: 'user.created',
  data: { userId: 'u1', email: 'a@b.test', passwordHash: 'x', firstName: null, lastName: null, roleId: null, status: 'unverified' },
};

describe('user', () => {
  it('bumps tokenVersion on every password change', () => {
    const changed = { type: 'user.password_changed', data: { userId: 'u1', passwordHash: 'y', tokenVersion: 1, reason: 'change' } };
    expect(given(userDecider, [created, changed]).when({ type: 'changePassword', passwordHash: 'z', reason: 'reset' })).toEqual([
      { type: 'user.password_changed', data: { userId: 'u1', passwordHash: 'z', tokenVersion: 2, reason: 'reset' } },
    ]);
  });

  it('verifies an email once', () => {
    const verified = { type: 'user.email_verified', data: { userId: 'u1', email: 'a@b.test' } };
    expect(given(userDecider, [created]).when({ type: 'verifyEmail' })).toEqual([verified]);
    expect(given(userDecider, [created, verified]).when({ type: 'verifyEmail' })).toEqual([]);
  });

  it('refuses every command on a deleted user with 404', () => {
    const deleted = { type: 'user.deleted', data: { userId: 'u1' } };
    expect(appErrorThrownBy(() => given(userDecider, [created, deleted]).when({ type: 'updatePreferences', changes: { saveAction: 'stay' } })).status).toBe(404);
    expect(appErrorThrownBy(() => given(userDecider, [created, deleted]).when({ type: 'deleteUser' })).status).toBe(404);
  });

  it('impersonation needs an active user and another administrator', () => {
    expect(appErrorThrownBy(() => given(userDecider, [created]).when({ type: 'impersonate', impersonatorId: 'admin', sessionId: 's' })).status).toBe(409);
    const active = { ...created, data: { ...created.data, status: 'active' } };
    expect(appErrorThrownBy(() => given(userDecider, [active]).when({ type: 'impersonate', impersonatorId: 'u1', sessionId: 's' })).status).toBe(400);
    expect(given(userDecider, [active]).when({ type: 'impersonate', impersonatorId: 'admin', sessionId: 's' })).toEqual([
      { type: 'user.impersonated', data: { userId: 'u1', impersonatorId: 'admin', sessionId: 's' } },
    ]);
  });

  it('links an external identity once, and lowercases a changed email', () => {
    const link = { type: 'linkExternalIdentity' as const, issuerId: 'i1', externalId: 'sub-1' };
    const [linked] = given(userDecider, [created]).when(link);
    expect(given(userDecider, [created, linked!]).when(link)).toEqual([]);
    expect(given(userDecider, [created]).when({ type: 'updateUser', changes: { email: ' New@B.Test ', firstName: undefined } })).toEqual([
      { type: 'user.updated', data: { userId: 'u1', changes: { email: 'new@b.test' } } },
    ]);
    expect(given(userDecider, [created]).when({ type: 'updateUser', changes: {} })).toEqual([]);
  });
});

const issuerConfig: IssuerConfig = {
  issuer: 'https://idp.test',
  jwksUri: 'https://idp.test/jwks',
  discoveryUrl: null,
  audience: 'svc',
  algorithms: ['RS256'],
  claimMapping: { email: 'email', roles: 'roles' },
  roleMapping: {},
  defaultRoleId: null,
  jitProvisioning: false,
  clockSkewSeconds: 60,
  enabled: true,
};

describe('trusted issuer', () => {
  it('keeps its invariants on create and update (422)', () => {
    const create = (config: Partial<IssuerConfig>) => () =>
      given(issuerDecider, []).when({ type: 'createIssuer', issuerId: 'i1', config: { ...issuerConfig, ...config } as IssuerConfig });
    expect(appErrorThrownBy(create({ algorithms: ['HS256' as never] }))).toMatchObject({ status: 422, path: ['body', 'algorithms', 0] });
    expect(appErrorThrownBy(create({ clockSkewSeconds: 301 }))).toMatchObject({ status: 422, path: ['body', 'clockSkewSeconds'] });
    expect(appErrorThrownBy(create({ discoveryUrl: 'https://idp.test/.well-known/openid-configuration' }))).toMatchObject({ status: 422 });
    expect(appErrorThrownBy(create({ jwksUri: null }))).toMatchObject({ status: 422, path: ['body', 'jwksUri'] });
    expect(create({ clockSkewSeconds: 300 })()).toHaveLength(1);
  });

  it('records no event for an update that changes nothing, and refuses updating a deleted issuer', () => {
    const createdIssuer = { type: 'issuer.created', data: { issuerId: 'i1', config: issuerConfig } };
    expect(given(issuerDecider, [createdIssuer]).when({ type: 'updateIssuer', config: { ...issuerConfig } })).toEqual([]);
    const deleted = { type: 'issuer.deleted', data: { issuerId: 'i1' } };
    expect(appErrorThrownBy(() => given(issuerDecider, [createdIssuer, deleted]).when({ type: 'updateIssuer', config: issuerConfig })).status).toBe(404);
  });
});

describe('api key, team and subscriber access', () => {
  it('binds an API key to exactly one of a user or a role, and revokes it once', () => {
    const base = { type: 'createApiKey' as const, apiKeyId: 'k1', name: 'n', keyHash: 'h', prefix: 'svk_abc' };
    expect(appErrorThrownBy(() => given(apiKeyDecider, []).when({ ...base, userId: 'u', roleId: 'r' })).status).toBe(400);
    expect(appErrorThrownBy(() => given(apiKeyDecider, []).when({ ...base, userId: null, roleId: null })).status).toBe(400);
    const [createdKey] = given(apiKeyDecider, []).when({ ...base, userId: 'u', roleId: null });
    const [revoked] = given(apiKeyDecider, [createdKey!]).when({ type: 'revokeApiKey' });
    expect(revoked).toEqual({ type: 'api_key.revoked', data: { apiKeyId: 'k1' } });
    expect(appErrorThrownBy(() => given(apiKeyDecider, [createdKey!, revoked!]).when({ type: 'revokeApiKey' })).status).toBe(404);
  });

  it('deduplicates team members', () => {
    expect(given(teamDecider, []).when({ type: 'createTeam', teamId: 't', name: 'T', members: ['a', 'b', 'a'] })[0]!.data).toMatchObject({ members: ['a', 'b'] });
  });

  it('grants subscriber access idempotently and refuses revoking what was not granted', () => {
    const grant = { type: 'grantSubscriberAccess' as const, collection: 'articles' };
    const [granted] = given(subscriberAccessDecider, []).when(grant);
    expect(given(subscriberAccessDecider, [granted!]).when(grant)).toEqual([]);
    expect(appErrorThrownBy(() => given(subscriberAccessDecider, []).when({ type: 'revokeSubscriberAccess', collection: 'articles' })).status).toBe(404);
  });
});

describe('deterministic ids', () => {
  it('gives the same RFC 9562 version-8 UUID for the same name, and different ones otherwise', () => {
    const id = deterministicUuid('site/role/subscriber');
    expect(id).toBe(deterministicUuid('site/role/subscriber'));
    expect(id).not.toBe(deterministicUuid('site/role/admin'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
