// The scheduler's task `agent-staged` (docs/agent-goals.md "Staged actions"): each tick runs the staged
// actions whose veto window ended and that nobody vetoed, through the skill runner with origin
// `staged` (the gate and the principal's rights are checked again, now), once: the start is recorded
// first under the stream's lock, so another instance's tick or a second run starts nothing; then
// whether it ran or failed. A requester that is gone fails it.
import { randomUUID } from 'node:crypto';
import { stagedActionDecider, type StagedActionCommand } from '../../../domain/agents/stagedAction.ts';
import { AppError } from '../../../domain/shared/appError.ts';
import type { EventMetadata } from '../../../domain/shared/events.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import { handleCommand } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { currentRequester } from '../ai/approvalQueries.ts';
import { runSkill } from '../ai/skillRunner.ts';
import { findStaged } from './agentWorkQueries.ts';
import type { StagedView } from './agentWorkSchemas.ts';
import { stagedStream } from './stagedActions.ts';

const PAGE_SIZE = 100;

function taskMetadata(staged: StagedView): EventMetadata {
  return {
    actor: { kind: 'agent', id: staged.agent.id },
    agent: { onBehalfOf: staged.requester.userId, approvedBy: null, approvalId: null, role: staged.agent.role, constitutionVersion: staged.constitutionVersion },
  };
}

async function record(context: AppContext, siteId: string, stagedId: string, command: StagedActionCommand, metadata: EventMetadata) {
  return handleCommand(context, { siteId, streamId: stagedStream(siteId, stagedId), decider: stagedActionDecider, command, metadata, lock: true });
}

/** Runs one due staged action, once; answers whether this call ran it. */
export async function runStagedAction(context: AppContext, siteId: string, stagedId: string, now: Date): Promise<boolean> {
  const staged = await context.database.withSiteReads(siteId, (tx) => findStaged(tx, siteId, stagedId));
  if (!staged) return false;
  const metadata = taskMetadata(staged);
  const started = await record(context, siteId, stagedId, { type: 'start', now: now.toISOString() }, metadata);
  if (started.events.length === 0) return false;
  const finish = (status: 'ran' | 'failed', code: string | null, message: string | null) => record(context, siteId, stagedId, { type: 'finish', status, code, message }, metadata);
  const principal = await context.database.withSiteReads(siteId, (tx) => currentRequester(tx, siteId, staged.requester));
  if (!principal) {
    await finish('failed', 'SKILL_DENIED', 'The principal the agent acted for (its user or API key) no longer exists or is no longer active');
    return true;
  }
  try {
    const outcome = await runSkill(context, {
      siteId,
      principal,
      agent: staged.agent,
      call: { skill: staged.skill, input: staged.input },
      requestId: randomUUID(),
      origin: { kind: 'staged', stagedId },
    });
    if (outcome.status === 'executed') await finish('ran', null, null);
    else await finish('failed', 'HITL_REQUIRED', outcome.message);
  } catch (error) {
    if (error instanceof AppError) await finish('failed', error.code, error.message);
    else {
      await finish('failed', 'INTERNAL', 'The call failed unexpectedly');
      context.logger.error({ err: error, siteId, stagedId }, 'staged agent action failed');
    }
  }
  return true;
}

/** The scheduler task: every due staged action, oldest first; one that fails is recorded and the others go on. */
export async function runDueStagedActions(context: AppContext, now: Date, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const due = await context.database.query<{ site_id: string; id: string }>(sql`SELECT * FROM svc_agent_due_staged(${now}, ${PAGE_SIZE})`);
    let ran = 0;
    for (const action of due) {
      if (signal?.aborted) return;
      try {
        if (await runStagedAction(context, action.site_id, action.id, now)) ran += 1;
      } catch (error) {
        context.logger.error({ err: error, siteId: action.site_id, stagedId: action.id }, 'staged agent action not run; the next tick retries');
      }
    }
    // A full page of which nothing started (another instance's) ends the tick: the next one reads again.
    if (due.length < PAGE_SIZE || ran === 0) return;
  }
}
