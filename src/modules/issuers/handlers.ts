// Trusted issuer commands: create, update (merged, then re-validated whole), delete. Every change
// is an event, so it is in the audit log.
import { randomUUID } from 'node:crypto';
import { issuerDecider, type IssuerConfig } from '../../../domain/identity/issuer.ts';
import { AppError, errors } from '../../../domain/shared/appError.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import type { Queryable } from '../../../infra/postgres/database.ts';
import { handleCommandIn, inSiteTransaction } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { roleExists } from '../users/queries.ts';
import { findIssuer, issuerIdByName, type IssuerView } from './queries.ts';
import { lockUniqueValue } from '../../runtime/uniqueness.ts';

const alreadyExists = () => new AppError('ISSUER_ALREADY_EXISTS', 'This site already trusts an issuer with this name', { path: ['body', 'issuer'] });
const invalid = (message: string, path: (string | number)[]) => new AppError('VALIDATION_FAILED', message, { path: ['body', ...path], unprocessable: true });

async function assertReferences(context: AppContext, tx: Queryable, siteId: string, config: IssuerConfig): Promise<void> {
  if (context.config.NODE_ENV === 'production') {
    for (const field of ['jwksUri', 'discoveryUrl'] as const) {
      if (config[field] && !config[field].startsWith('https://')) throw invalid(`${field} must use https`, [field]);
    }
  }
  if (config.defaultRoleId && !(await roleExists(tx, siteId, config.defaultRoleId))) throw invalid('No role with this id', ['defaultRoleId']);
  for (const [claimValue, target] of Object.entries(config.roleMapping)) {
    if ('roleId' in target && !(await roleExists(tx, siteId, target.roleId))) throw invalid('No role with this id', ['roleMapping', claimValue, 'roleId']);
  }
}

export async function createIssuer(context: AppContext, siteId: string, config: IssuerConfig, metadata: EventMetadata): Promise<IssuerView> {
  const issuerId = randomUUID();
  return inSiteTransaction(context, siteId, async (tx) => {
    await lockUniqueValue(tx, siteId, 'issuer', config.issuer);
    if (await issuerIdByName(tx, siteId, config.issuer)) throw alreadyExists();
    await assertReferences(context, tx, siteId, config);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'issuer', issuerId),
      decider: issuerDecider,
      command: { type: 'createIssuer', issuerId, config },
      metadata,
    });
    return (await findIssuer(tx, siteId, issuerId))!;
  });
}

export async function updateIssuer(
  context: AppContext,
  siteId: string,
  issuerId: string,
  changes: Partial<IssuerConfig>,
  metadata: EventMetadata,
): Promise<IssuerView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const current = await findIssuer(tx, siteId, issuerId);
    if (!current) throw errors.notFound('Issuer not found');
    const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, ...currentConfig } = current;
    const config: IssuerConfig = { ...currentConfig, ...changes };
    await lockUniqueValue(tx, siteId, 'issuer', config.issuer);
    const sameName = await issuerIdByName(tx, siteId, config.issuer);
    if (sameName && sameName !== issuerId) throw alreadyExists();
    await assertReferences(context, tx, siteId, config);
    await handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'issuer', issuerId),
      decider: issuerDecider,
      command: { type: 'updateIssuer', config },
      metadata,
    });
    return (await findIssuer(tx, siteId, issuerId))!;
  });
}

export async function deleteIssuer(context: AppContext, siteId: string, issuerId: string, metadata: EventMetadata): Promise<void> {
  await inSiteTransaction(context, siteId, (tx) =>
    handleCommandIn(tx, context.projections, {
      siteId,
      streamId: streamId(siteId, 'issuer', issuerId),
      decider: issuerDecider,
      command: { type: 'deleteIssuer' },
      metadata,
    }),
  );
}
