// A statement's plan as a flat list of its nodes, read with sequential scans discouraged (so an index
// the planner could use shows even on the small tables of the test database).
import { sql, type SqlFragment } from '../../infra/postgres/sql.ts';
import type { TestService } from './testService.ts';

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export async function planNodes(service: TestService, siteId: string, statement: SqlFragment): Promise<PlanNode[]> {
  const [row] = await service.context.database.withSite(siteId, async (tx) => {
    await tx.query(sql`SET LOCAL enable_seqscan = off`);
    return tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(sql`EXPLAIN (FORMAT JSON) ${statement}`);
  });
  return nodesOf(row!['QUERY PLAN'][0].Plan);
}
