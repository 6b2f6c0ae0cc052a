// Every area's routes, registered under /api/v1.
import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../server/serverDeps.ts';
import { accountRoutes } from './account/routes.ts';
import { apiKeysRoutes } from './apiKeys/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { cdcRoutes } from './cdc/routes.ts';
import { instanceRoutes } from './instance/routes.ts';
import { issuersRoutes } from './issuers/routes.ts';
import { permissionsRoutes } from './permissions/routes.ts';
import { policiesRoutes } from './policies/routes.ts';
import { rolesRoutes } from './roles/routes.ts';
import { pinRoutes } from './items/pinRoutes.ts';
import { revisionRoutes } from './items/revisionRoutes.ts';
import { itemsRoutes } from './items/routes.ts';
import { versionRoutes } from './items/versionRoutes.ts';
import { schemaRoutes } from './schema/routes.ts';
import { pushRoutes } from './push/routes.ts';
import { realtimeRoutes } from './realtime/routes.ts';
import { searchRoutes } from './search/routes.ts';
import { teamsRoutes } from './teams/routes.ts';
import { usersRoutes } from './users/routes.ts';
import { utilsRoutes } from './utils/routes.ts';

export async function registerModules(api: FastifyInstance, deps: ServerDeps): Promise<void> {
  await api.register(async (scope) => utilsRoutes(scope, deps));
  await api.register(async (scope) => instanceRoutes(scope, deps));
  await api.register(async (scope) => authRoutes(scope, deps));
  await api.register(async (scope) => accountRoutes(scope, deps));
  await api.register(async (scope) => usersRoutes(scope, deps));
  await api.register(async (scope) => teamsRoutes(scope, deps));
  await api.register(async (scope) => apiKeysRoutes(scope, deps));
  await api.register(async (scope) => issuersRoutes(scope, deps));
  await api.register(async (scope) => rolesRoutes(scope, deps));
  await api.register(async (scope) => policiesRoutes(scope, deps));
  await api.register(async (scope) => permissionsRoutes(scope, deps));
  await api.register(async (scope) => auditRoutes(scope, deps));
  await api.register(async (scope) => schemaRoutes(scope, deps));
  await api.register(async (scope) => itemsRoutes(scope, deps));
  await api.register(async (scope) => revisionRoutes(scope, deps));
  await api.register(async (scope) => versionRoutes(scope, deps));
  await api.register(async (scope) => pinRoutes(scope, deps));
  await api.register(async (scope) => searchRoutes(scope, deps));
  await api.register(async (scope) => cdcRoutes(scope, deps));
  await api.register(async (scope) => realtimeRoutes(scope, deps));
  await api.register(async (scope) => pushRoutes(scope, deps));
}
