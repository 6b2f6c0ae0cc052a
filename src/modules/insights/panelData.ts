// Answers a panel query for a caller (POST …/panels/:panelId/data and …/panels/preview): planned
// against the caller's whitelist, answered from the panel cache or run with the caller's read
// permissions (docs/insights.md).
import { performance } from 'node:perf_hooks';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { Access } from '../../access/access.ts';
import type { ErrorPath } from '../../query/index.ts';
import type { ItemsReadContext } from '../items/queries.ts';
import { permissionFingerprint, type PanelCache } from './panelCache.ts';
import { executePanelPlan, planPanelQuery, type PanelRow } from './panelQuery.ts';
import type { PanelQueryBody } from './schemas.ts';

export interface PanelData {
  data: PanelRow[];
  meta: { executedAt: string; rowCount: number; durationMs: number; cached: boolean };
}

export async function answerPanelQuery(
  context: ItemsReadContext,
  cache: PanelCache,
  access: Access,
  query: PanelQueryBody,
  metadata: EventMetadata,
  path: ErrorPath,
): Promise<PanelData> {
  const now = new Date();
  const schema = await context.schemas.site(access.siteId);
  const plan = planPanelQuery(schema, access, query, now, path);
  const answer = await cache.answer(plan, schema.version, permissionFingerprint(access, plan.normalized), async () => {
    const started = performance.now();
    const rows = await executePanelPlan(context, access, plan, metadata);
    return { rows, executedAt: now.toISOString(), durationMs: Math.round((performance.now() - started) * 100) / 100 };
  });
  return { data: answer.rows, meta: { executedAt: answer.executedAt, rowCount: answer.rows.length, durationMs: answer.durationMs, cached: answer.cached } };
}
