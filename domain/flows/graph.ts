// Graph validation of an active flow (docs/flows.md): operations that exist with options they take,
// edges between nodes of the graph, at least one entry, no loop. Each refusal names its node. The
// order of a walk (`entryNodes`, `topologicalOrder`) is the executor's too.
import { AppError } from '../shared/appError.ts';
import type { FlowEdge, FlowGraph, FlowNode } from './events.ts';

/** What validation asks of the operation registry: whether a key exists, and the problem with its options (null when none). */
export interface OperationCatalogue {
  has(key: string): boolean;
  /** The first problem of `options` for `key`: its path inside the options and a message; null when they are valid. */
  checkOptions(key: string, options: Record<string, unknown>): { path: (string | number)[]; message: string } | null;
}

const graphError = (code: 'GRAPH_DANGLING_EDGE' | 'GRAPH_CYCLE' | 'GRAPH_NO_ENTRY' | 'GRAPH_UNKNOWN_OPERATION', message: string, extensions: Record<string, unknown>) =>
  new AppError(code, message, { path: ['body', 'graph'], extensions });

export function entryNodes(graph: FlowGraph): FlowNode[] {
  const targets = new Set(graph.edges.map((edge) => edge.to));
  return graph.nodes.filter((node) => !targets.has(node.id));
}

/** Throws the first problem of an active flow's graph, in the documented order. */
export function assertValidGraph(graph: FlowGraph, operations: OperationCatalogue): void {
  graph.nodes.forEach((node, index) => {
    if (!operations.has(node.operation)) {
      throw graphError('GRAPH_UNKNOWN_OPERATION', `Node "${node.id}" uses the unknown operation "${node.operation}"`, { nodeId: node.id });
    }
    const problem = operations.checkOptions(node.operation, node.options);
    if (problem) {
      throw new AppError('VALIDATION_FAILED', `Node "${node.id}": ${problem.message}`, {
        path: ['body', 'graph', 'nodes', index, 'options', ...problem.path],
        extensions: { nodeId: node.id },
      });
    }
  });
  const ids = new Set(graph.nodes.map((node) => node.id));
  for (const edge of graph.edges) {
    const missing = !ids.has(edge.from) ? edge.from : !ids.has(edge.to) ? edge.to : null;
    if (missing !== null) {
      throw graphError('GRAPH_DANGLING_EDGE', `An edge names the node "${missing}", which is not in the graph`, { nodeId: missing, edge: edgeRef(edge) });
    }
  }
  if (graph.nodes.length === 0 || entryNodes(graph).length === 0) {
    throw graphError('GRAPH_NO_ENTRY', 'The graph has no entry: every node has an incoming edge', { nodeId: null });
  }
  const onCycle = nodeOnCycle(graph);
  if (onCycle !== null) throw graphError('GRAPH_CYCLE', `The edges loop through node "${onCycle}"`, { nodeId: onCycle });
}

const edgeRef = (edge: FlowEdge) => ({ from: edge.from, to: edge.to });

/** A node on a loop, or null (Kahn's algorithm: what is never freed of incoming edges is on or behind a loop). */
function nodeOnCycle(graph: FlowGraph): string | null {
  const order = topologicalOrder(graph);
  if (order.length === graph.nodes.length) return null;
  const ordered = new Set(order);
  // Of the nodes left, one whose every predecessor is also left lies on a loop: walk back from any until a node repeats.
  const left = graph.nodes.filter((node) => !ordered.has(node.id)).map((node) => node.id);
  const predecessor = new Map<string, string>();
  for (const edge of graph.edges) if (!ordered.has(edge.from) && !ordered.has(edge.to)) predecessor.set(edge.to, edge.from);
  const seen = new Set<string>();
  let current: string | undefined = left[0];
  while (current !== undefined && !seen.has(current)) {
    seen.add(current);
    current = predecessor.get(current);
  }
  return current ?? left[0] ?? null;
}

/** The nodes in an order where every node comes after those with an edge to it (graph order among equals). */
export function topologicalOrder(graph: FlowGraph): string[] {
  const incoming = new Map(graph.nodes.map((node) => [node.id, 0]));
  for (const edge of graph.edges) if (incoming.has(edge.to) && incoming.has(edge.from)) incoming.set(edge.to, incoming.get(edge.to)! + 1);
  const ready = graph.nodes.filter((node) => incoming.get(node.id) === 0).map((node) => node.id);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const edge of graph.edges) {
      if (edge.from !== id || !incoming.has(edge.to)) continue;
      const remaining = incoming.get(edge.to)! - 1;
      incoming.set(edge.to, remaining);
      if (remaining === 0) ready.push(edge.to);
    }
  }
  return order;
}
