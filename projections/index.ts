// Every read model of the service. Inline ones run in the append's transaction, in this order.
import { auditProjection } from './auditProjection.ts';
import type { Projection } from './projection.ts';
import { rolesProjection } from './rolesProjection.ts';
import { sessionsProjection } from './sessionsProjection.ts';
import { sitesProjection } from './sitesProjection.ts';
import { usersProjection } from './usersProjection.ts';

export const projections: readonly Projection[] = [
  sitesProjection,
  rolesProjection,
  usersProjection,
  sessionsProjection,
  auditProjection,
];

export function findProjection(name: string): Projection | undefined {
  return projections.find((projection) => projection.name === name);
}
