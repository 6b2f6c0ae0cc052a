// Graph validation, the walk order, cron rules and the flow decider's schedule firing, without a database.
import { describe, expect, it } from 'vitest';
import { assertValidCron, nextCronTime } from '../../../domain/flows/cron.ts';
import type { FlowContent, FlowGraph } from '../../../domain/flows/events.ts';
import { flowDecider } from '../../../domain/flows/flow.ts';
import { assertValidGraph, entryNodes, topologicalOrder, type OperationCatalogue } from '../../../domain/flows/graph.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const operations: OperationCatalogue = {
  has: (key) => key === 'log' || key === 'delay',
  checkOptions: (key, options) => (key === 'delay' && typeof options.ms !== 'number' ? { path: ['ms'], message: 'expected a number' } : null),
};
const node = (id: string, operation = 'log', options: Record<string, unknown> = {}) => ({ id, operation, options });

function refusal(graph: FlowGraph): AppError {
  try {
    assertValidGraph(graph, operations);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('the graph was accepted');
}

describe('graph validation', () => {
  it('accepts a DAG and walks it in dependency order, entries first in graph order', () => {
    const graph = { nodes: [node('c'), node('a'), node('b')], edges: [{ from: 'a', to: 'c' }, { from: 'b', to: 'c' }] };
    expect(() => assertValidGraph(graph, operations)).not.toThrow();
    expect(entryNodes(graph).map((n) => n.id)).toEqual(['a', 'b']);
    expect(topologicalOrder(graph)).toEqual(['a', 'b', 'c']);
  });

  it('names the node of each refusal, in the documented order', () => {
    const unknown = refusal({ nodes: [node('x', 'nope')], edges: [{ from: 'x', to: 'ghost' }] });
    expect([unknown.code, unknown.extensions.nodeId]).toEqual(['GRAPH_UNKNOWN_OPERATION', 'x']);
    const options = refusal({ nodes: [node('a'), node('d', 'delay', { ms: 'soon' })], edges: [] });
    expect([options.code, options.path, options.extensions.nodeId]).toEqual(['VALIDATION_FAILED', ['body', 'graph', 'nodes', 1, 'options', 'ms'], 'd']);
    const dangling = refusal({ nodes: [node('a')], edges: [{ from: 'a', to: 'ghost' }] });
    expect([dangling.code, dangling.extensions.nodeId, dangling.extensions.edge]).toEqual(['GRAPH_DANGLING_EDGE', 'ghost', { from: 'a', to: 'ghost' }]);
    expect(refusal({ nodes: [], edges: [] }).code).toBe('GRAPH_NO_ENTRY');
    const noEntry = refusal({ nodes: [node('a'), node('b')], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] });
    expect([noEntry.code, noEntry.extensions.nodeId]).toEqual(['GRAPH_NO_ENTRY', null]);
  });

  it('finds a loop behind an entry, and a node that loops to itself', () => {
    const loop = refusal({
      nodes: [node('start'), node('a'), node('b'), node('c')],
      edges: [{ from: 'start', to: 'a' }, { from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }],
    });
    expect(loop.code).toBe('GRAPH_CYCLE');
    expect(['a', 'b', 'c']).toContain(loop.extensions.nodeId);
    const self = refusal({ nodes: [node('start'), node('s')], edges: [{ from: 'start', to: 's' }, { from: 's', to: 's' }] });
    expect([self.code, self.extensions.nodeId]).toEqual(['GRAPH_CYCLE', 's']);
  });
});

describe('cron', () => {
  it('takes five fields croner accepts, and nothing else', () => {
    expect(() => assertValidCron('*/5 * * * *')).not.toThrow();
    for (const cron of ['* * * * * *', '* * * *', '61 * * * *', 'every day', '']) {
      expect(() => assertValidCron(cron), cron).toThrow(expect.objectContaining({ code: 'CRON_INVALID', path: ['body', 'triggerOptions', 'cron'] }));
    }
  });

  it('gives the next time strictly after a moment, in UTC', () => {
    expect(nextCronTime('0 12 * * *', new Date('2026-11-28T11:59:00Z'))?.toISOString()).toBe('2026-11-28T12:00:00.000Z');
    expect(nextCronTime('0 12 * * *', new Date('2026-11-28T12:00:00Z'))?.toISOString()).toBe('2026-11-29T12:00:00.000Z');
  });
});

describe('the flow decider', () => {
  const spec = deciderSpecification(flowDecider);
  const flowId = '0190d6a0-0000-7000-8000-000000000001';
  const runId = '0190d6a0-0000-7000-8000-000000000002';
  const flow: FlowContent = {
    name: 'Nightly',
    description: null,
    status: 'active',
    trigger: 'schedule',
    triggerOptions: { cron: '0 3 * * *' },
    graph: { nodes: [node('log')], edges: [] },
    actAs: null,
  };
  const created = { type: 'flow.created' as const, data: { flowId, ownerId: null, version: 1, flow, nextRunAt: '2026-11-28T03:00:00.000Z' } };

  it('fires a schedule once per due time, and not before it', () => {
    const fired = {
      type: 'flow.schedule_fired' as const,
      data: { flowId, dueAt: '2026-11-28T03:00:00.000Z', runId, nextRunAt: '2026-11-29T03:00:00.000Z' },
    };
    spec.given([created]).when({ type: 'fireSchedule', runId, now: '2026-11-28T03:00:05.000Z', nextRunAt: '2026-11-29T03:00:00.000Z' }).then([fired]);
    spec.given([created, fired]).when({ type: 'fireSchedule', runId, now: '2026-11-28T03:00:06.000Z', nextRunAt: '2026-11-29T03:00:00.000Z' }).thenNothing();
    spec.given([created]).when({ type: 'fireSchedule', runId, now: '2026-11-28T02:59:59.000Z', nextRunAt: null }).thenNothing();
  });

  it('versions every change and records nothing for the same content and schedule', () => {
    spec.given([created]).when({ type: 'updateFlow', flow, nextRunAt: '2026-11-28T03:00:00.000Z' }).thenNothing();
    spec
      .given([created])
      .when({ type: 'updateFlow', flow: { ...flow, name: 'Nightly job' }, nextRunAt: '2026-11-28T03:00:00.000Z' })
      .then([{ type: 'flow.updated', data: { flowId, version: 2, flow: { ...flow, name: 'Nightly job' }, changed: ['name'], nextRunAt: '2026-11-28T03:00:00.000Z' } }]);
    spec.given([created, { type: 'flow.deleted', data: { flowId } }]).when({ type: 'deleteFlow' }).thenThrows('NOT_FOUND', 404);
  });
});
