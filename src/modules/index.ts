// Every area's routes, registered under /api/v1.
import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../server/app.ts';
import { auditRoutes } from './audit/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { instanceRoutes } from './instance/routes.ts';
import { utilsRoutes } from './utils/routes.ts';

export async function registerModules(api: FastifyInstance, deps: ServerDeps): Promise<void> {
  await api.register(async (scope) => utilsRoutes(scope, deps));
  await api.register(async (scope) => instanceRoutes(scope, deps));
  await api.register(async (scope) => authRoutes(scope, deps));
  await api.register(async (scope) => auditRoutes(scope, deps));
}
