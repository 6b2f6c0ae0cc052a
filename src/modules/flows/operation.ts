// What a flow operation is (docs/flows.md "Operations"): a key, a description, the zod schema of its
// options (their JSON schema is what GET /flows/operations lists), whether it has side effects (a
// dry run records what it would do instead of running it), the options it takes raw (not rendered as
// templates), and what it does with its rendered options and the run.
import type { z } from 'zod';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import type { OutboundHttp } from '../../../infra/http/outboundHttp.ts';
import type { Principal } from '../../auth/principal.ts';
import type { AppContext } from '../../runtime/context.ts';

/** What every operation sees of the run (its options' templates render over it too). */
export interface FlowRunData {
  $trigger: unknown;
  $last: unknown;
  $steps: Record<string, unknown>;
  $flow: { id: string; name: string };
  $run: { id: string; depth: number };
}

export interface OperationCall {
  context: AppContext;
  siteId: string;
  flow: { id: string; name: string };
  runId: string;
  depth: number;
  /** The principal the flow acts as (its owner, or its `actAs` role): every command and read is authorized as it. */
  principal: Principal;
  /** The metadata of every write the run makes: the acting principal, and the run as its causation (the loop guard). */
  metadata: EventMetadata;
  /** The SSRF-guarded outbound client (docs/security.md "Outbound requests"). */
  http: OutboundHttp;
  /** Aborted at the run's timeout. */
  signal: AbortSignal;
  data: FlowRunData;
  /** Queues a run of another flow of the site (trigger_flow), one level deeper; null when the depth limit stops it. */
  startFlow(flowId: string, input: unknown): Promise<{ runId: string } | null>;
}

export interface FlowOperation<Options = unknown> {
  key: string;
  description: string;
  options: z.ZodType<Options>;
  /** It writes, sends or calls out: a dry run does not execute it. */
  sideEffects: boolean;
  /** Option keys (top level) left as they are, not rendered as templates (a JSONata expression, a filter). */
  raw?: readonly string[];
  /** Its output: what `$last` and `$steps.<nodeId>` hold next. Throwing is the node's failure. */
  run(options: Options, call: OperationCall): Promise<unknown>;
}

/** `defineOperation({...})` keeps the options' type through to `run`. */
export function defineOperation<Options>(operation: FlowOperation<Options>): FlowOperation<Options> {
  return operation;
}

export type AnyFlowOperation = FlowOperation<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
