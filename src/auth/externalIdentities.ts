// Which local user an externally issued token signs in as: the user already linked to the token's
// (issuer, external id); else the live user with the token's (verified) email, linked now; else, with
// just-in-time provisioning, a new user created through events. Otherwise nobody (401).
import { randomUUID } from 'node:crypto';
import { userDecider } from '../../domain/identity/user.ts';
import { streamId, type EventMetadata } from '../../domain/shared/events.ts';
import { sql } from '../../infra/postgres/sql.ts';
import { handleCommandIn, inSiteTransaction } from '../runtime/commandHandler.ts';
import type { AppContext } from '../runtime/context.ts';
import { deterministicUuid } from './deterministicId.ts';

export interface ExternalIdentity {
  issuerId: string;
  externalId: string;
  email: string | null;
  /** False only when the token says the email is not verified: then it is never used to link. */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

export interface LocalUser {
  id: string;
  status: string;
}

export async function resolveExternalUser(
  context: Pick<AppContext, 'database' | 'projections'>,
  siteId: string,
  identity: ExternalIdentity,
  provisioning: { jit: boolean; roleId: string },
): Promise<LocalUser | null> {
  const metadata: EventMetadata = { actor: { kind: 'system', id: `issuer:${identity.issuerId}` } };
  return inSiteTransaction(context, siteId, async (tx) => {
    const [linked] = await tx.query<LocalUser>(sql`
      SELECT u.id, u.status FROM user_identities i JOIN users u ON u.site_id = i.site_id AND u.id = i.user_id
       WHERE i.site_id = ${siteId} AND i.issuer_id = ${identity.issuerId} AND i.external_id = ${identity.externalId}
         AND u.deleted_at IS NULL`);
    if (linked) return linked;
    const link = (userId: string) =>
      handleCommandIn(tx, context.projections, {
        siteId,
        streamId: streamId(siteId, 'user', userId),
        decider: userDecider,
        command: { type: 'linkExternalIdentity', issuerId: identity.issuerId, externalId: identity.externalId },
        metadata,
      });
    if (identity.email && identity.emailVerified) {
      const [byEmail] = await tx.query<LocalUser>(
        sql`SELECT id, status FROM users WHERE site_id = ${siteId} AND email = ${identity.email} AND deleted_at IS NULL`,
      );
      if (byEmail) {
        await link(byEmail.id);
        return byEmail;
      }
    }
    if (!provisioning.jit || !identity.email) return null;
    // Name-based id: two first sign-ins at once hit the same stream and one retries (then finds the link).
    let userId = deterministicUuid(`${siteId}/external-user/${identity.issuerId}/${identity.externalId}`);
    const [previous] = await tx.query(sql`SELECT 1 FROM users WHERE site_id = ${siteId} AND id = ${userId}`);
    if (previous) userId = randomUUID();
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'user', userId),
      decider: userDecider,
      command: {
        type: 'createUser',
        userId,
        email: identity.email,
        passwordHash: null,
        firstName: identity.firstName,
        lastName: identity.lastName,
        roleId: provisioning.roleId,
        status: 'active',
      },
      metadata,
    });
    await link(userId);
    return { id: userId, status: 'active' };
  });
}
