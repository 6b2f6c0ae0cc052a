// A goal (docs/agent-goals.md, stream `<siteId>/agent-goal/<id>`): what an agent is to do, as skill
// calls (its steps: given, or decomposed from its instructions), run for the principal that created it,
// sync (in the request) or async (a job). A run records each step's outcome and how it ended: done,
// waiting for a person (an approval, a veto window), failed, or halted by the kill switch. A goal runs
// once; settling closes it, once.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { goalEventSchemas, type GoalEvent, type GoalOutcome, type GoalStatus, type GoalStep, type RunEnding } from './agentWorkEvents.ts';

type Created = Extract<GoalEvent, { type: 'agent_goal.created' }>['data'];
type Step = Omit<Extract<GoalEvent, { type: 'agent_goal.step_recorded' }>['data'], 'goalId' | 'runId' | 'index'>;

export type GoalCommand =
  | { type: 'createGoal'; goal: Created }
  | { type: 'decompose'; steps: GoalStep[] }
  | { type: 'queueRun'; runId: string }
  | { type: 'startRun'; runId: string }
  | { type: 'recordStep'; step: Step }
  | { type: 'finishRun'; status: RunEnding; code: string | null; message: string | null }
  | { type: 'settle'; outcome: GoalOutcome; summary: string | null; settledBy: string | null };

export interface GoalState {
  status: 'absent' | GoalStatus;
  goalId: string | null;
  steps: number;
  runId: string | null;
  recorded: number;
  settled: boolean;
}

const conflict = (message: string, state: GoalState) => new AppError('CONFLICT', message, { extensions: { status: state.status, settled: state.settled } });

export const goalDecider: Decider<GoalState, GoalCommand, GoalEvent> = {
  eventTypes: eventTypesOf(goalEventSchemas),
  initialState: () => ({ status: 'absent', goalId: null, steps: 0, runId: null, recorded: 0, settled: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'agent_goal.created':
        return { ...state, status: 'planned', goalId: event.data.goalId, steps: event.data.steps.length };
      case 'agent_goal.decomposed':
        return { ...state, steps: event.data.steps.length };
      case 'agent_goal.run_queued':
        return { ...state, status: 'queued', runId: event.data.runId };
      case 'agent_goal.run_started':
        return { ...state, status: 'running', runId: event.data.runId };
      case 'agent_goal.step_recorded':
        return { ...state, recorded: state.recorded + 1 };
      case 'agent_goal.run_finished':
        return { ...state, status: event.data.status };
      case 'agent_goal.settled':
        return { ...state, settled: true };
    }
  },
  decide(command, state) {
    if (command.type === 'createGoal') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The goal exists');
      return [{ type: 'agent_goal.created', data: command.goal }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Goal not found');
    const goalId = state.goalId!;
    switch (command.type) {
      case 'decompose':
        if (state.settled || state.status !== 'planned') throw conflict('Only a planned goal (not yet run, not settled) is decomposed', state);
        return [{ type: 'agent_goal.decomposed', data: { goalId, steps: command.steps } }];
      case 'queueRun':
      case 'startRun': {
        // A job that runs again finds its run started or finished: nothing to record.
        if (command.type === 'startRun' && state.status === 'queued' && state.runId === command.runId && !state.settled) {
          return [{ type: 'agent_goal.run_started', data: { goalId, runId: command.runId } }];
        }
        if (command.type === 'startRun' && state.runId === command.runId) return [];
        if (state.settled || state.status !== 'planned') throw conflict('The goal has run already (or is settled): a goal runs once', state);
        if (state.steps === 0) throw new AppError('CONFLICT', 'The goal has no steps: give steps or decompose its instructions first');
        return [{ type: command.type === 'queueRun' ? 'agent_goal.run_queued' : 'agent_goal.run_started', data: { goalId, runId: command.runId } }];
      }
      case 'recordStep':
        if (state.status !== 'running') return [];
        return [{ type: 'agent_goal.step_recorded', data: { goalId, runId: state.runId!, index: state.recorded, ...command.step } }];
      case 'finishRun':
        if (state.status !== 'running' && state.status !== 'queued') return [];
        return [{ type: 'agent_goal.run_finished', data: { goalId, runId: state.runId!, status: command.status, code: command.code, message: command.message } }];
      case 'settle':
        if (state.settled) throw conflict('The goal is already settled', state);
        return [{ type: 'agent_goal.settled', data: { goalId, outcome: command.outcome, summary: command.summary, settledBy: command.settledBy } }];
    }
  },
};
