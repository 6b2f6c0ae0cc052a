// An AI approval (stream `<siteId>/ai-approval/<id>`): a dangerous skill call waiting for a person.
// It is decided once: approved (then executed, failed, or stale when what it read moved since) or
// rejected; an agent's review is recorded, and only its rejection ends it (docs/ai-skills.md).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import {
  aiApprovalEventSchemas,
  type AiApprovalEvent,
  type ApprovalAgent,
  type ApprovalDecision,
  type ApprovalPin,
  type ApprovalRequester,
  type ApprovalStatus,
} from './approvalEvents.ts';

export type ApprovalCommand =
  | {
      type: 'requestApproval';
      approvalId: string;
      skill: string;
      input: Record<string, unknown>;
      requester: ApprovalRequester;
      agent: ApprovalAgent;
      pins: ApprovalPin[];
      diff: Record<string, unknown>;
      constitutionVersion: number | null;
    }
  | {
      type: 'agentReview';
      decision: ApprovalDecision;
      reviewerId: string;
      reviewerApiKeyId: string | null;
      reviewerAgentId: string | null;
      reason: string | null;
    }
  | { type: 'approve'; approvedBy: string; reason: string | null; separateApprover: boolean }
  | { type: 'reject'; rejectedBy: string; reason: string | null }
  | { type: 'markStale'; movedStreams: string[] }
  | { type: 'markExecuted' }
  | { type: 'markFailed'; code: string; message: string };

export interface ApprovalState {
  status: 'absent' | ApprovalStatus;
  approvalId: string | null;
  requester: ApprovalRequester | null;
  agent: ApprovalAgent | null;
}

function decided(status: ApprovalState['status']): AppError {
  return new AppError('CONFLICT', `The approval is already ${status === 'pending_approval' ? 'pending' : status}`);
}

export const approvalDecider: Decider<ApprovalState, ApprovalCommand, AiApprovalEvent> = {
  eventTypes: eventTypesOf(aiApprovalEventSchemas),
  initialState: () => ({ status: 'absent', approvalId: null, requester: null, agent: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'ai_approval.requested':
        return { status: 'pending_approval', approvalId: event.data.approvalId, requester: event.data.requester, agent: event.data.agent };
      case 'ai_approval.agent_reviewed':
        return event.data.decision === 'rejected' ? { ...state, status: 'rejected' } : state;
      case 'ai_approval.approved':
        return { ...state, status: 'approved' };
      case 'ai_approval.rejected':
        return { ...state, status: 'rejected' };
      case 'ai_approval.executed':
        return { ...state, status: 'executed' };
      case 'ai_approval.failed':
        return { ...state, status: 'failed' };
      case 'ai_approval.staled':
        return { ...state, status: 'stale' };
    }
  },
  decide(command, state) {
    if (command.type === 'requestApproval') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The approval already exists');
      const { type: _type, ...data } = command;
      return [{ type: 'ai_approval.requested', data }];
    }
    if (state.status === 'absent') throw new AppError('NOT_FOUND', 'Approval not found');
    const approvalId = state.approvalId!;
    const requester = state.requester!;
    switch (command.type) {
      case 'agentReview': {
        if (state.status !== 'pending_approval') throw decided(state.status);
        const own =
          command.reviewerId === requester.userId ||
          (command.reviewerApiKeyId !== null && command.reviewerApiKeyId === requester.apiKeyId) ||
          (command.reviewerAgentId !== null && command.reviewerAgentId === state.agent!.id);
        if (own) throw new AppError('PERMISSION_DENIED', 'An agent may not review its own request');
        const { type: _type, ...data } = command;
        return [{ type: 'ai_approval.agent_reviewed', data: { approvalId, ...data } }];
      }
      case 'approve':
        if (state.status !== 'pending_approval') throw decided(state.status);
        if (command.separateApprover && command.approvedBy === requester.userId) {
          throw new AppError('PERMISSION_DENIED', 'This site wants another person than the requester to approve (aiSeparateApprover)');
        }
        return [{ type: 'ai_approval.approved', data: { approvalId, approvedBy: command.approvedBy, reason: command.reason } }];
      case 'reject':
        if (state.status !== 'pending_approval') throw decided(state.status);
        return [{ type: 'ai_approval.rejected', data: { approvalId, rejectedBy: command.rejectedBy, reason: command.reason } }];
      case 'markStale':
        if (state.status !== 'pending_approval' && state.status !== 'approved') throw decided(state.status);
        return [{ type: 'ai_approval.staled', data: { approvalId, movedStreams: command.movedStreams } }];
      case 'markExecuted':
        if (state.status !== 'approved') throw decided(state.status);
        return [{ type: 'ai_approval.executed', data: { approvalId } }];
      case 'markFailed':
        if (state.status !== 'approved' && state.status !== 'pending_approval') throw decided(state.status);
        return [{ type: 'ai_approval.failed', data: { approvalId, code: command.code, message: command.message } }];
    }
  },
};
