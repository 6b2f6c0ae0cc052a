// Splits the async projections that stand at the same checkpoint into lanes that the daemon steps
// concurrently, each lane in one transaction: one lane per connection keeps a few cores busy while
// a backlog drains (a single joint transaction alternates between Node and one PostgreSQL backend,
// so it never uses more than one core), while the projections of a lane still share one
// transaction, one checkpoint round trip and one commit per batch.
import type { Projection } from '../../projections/projection.ts';

/**
 * At most `count` lanes, balanced by the projections' declared cost: the costliest projection goes
 * first, each into the lane with the least cost so far (ties: the earlier lane). Lanes keep the
 * projections' given order inside them; empty lanes are dropped.
 */
export function splitIntoLanes(projections: readonly Projection[], count: number): Projection[][] {
  const lanes = Array.from({ length: Math.max(1, Math.min(count, projections.length)) }, () => ({ cost: 0, members: [] as number[] }));
  const byCost = projections.map((projection, index) => ({ index, cost: projection.cost ?? 1 })).sort((a, b) => b.cost - a.cost || a.index - b.index);
  for (const { index, cost } of byCost) {
    const lightest = lanes.reduce((best, lane) => (lane.cost < best.cost ? lane : best));
    lightest.cost += cost;
    lightest.members.push(index);
  }
  return lanes.filter((lane) => lane.members.length > 0).map((lane) => lane.members.sort((a, b) => a - b).map((index) => projections[index]!));
}
