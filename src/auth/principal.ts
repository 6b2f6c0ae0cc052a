// Who is calling: the result of authentication, carried on every request.
export type Principal =
  | { kind: 'anonymous' }
  | {
      kind: 'user';
      userId: string;
      roleId: string | null;
      admin: boolean;
      sessionId: string | null;
      impersonatorId?: string | null;
      /** Where the credential came from: a login token, an API key, an external issuer. */
      via: 'session' | 'apiKey' | 'external';
      realm: 'studio' | 'frontend';
    }
  | { kind: 'instance' };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

export function actorOf(principal: Principal): { kind: 'user' | 'apiKey' | 'system' | 'instance' | 'anonymous'; id: string | null; impersonatorId?: string } {
  switch (principal.kind) {
    case 'user':
      return {
        kind: principal.via === 'apiKey' ? 'apiKey' : 'user',
        id: principal.userId,
        ...(principal.impersonatorId ? { impersonatorId: principal.impersonatorId } : {}),
      };
    case 'instance':
      return { kind: 'instance', id: null };
    default:
      return { kind: 'anonymous', id: null };
  }
}
