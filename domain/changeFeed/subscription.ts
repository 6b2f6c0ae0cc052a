// A change-feed subscription (stream <site>/cdc-subscription/<id>): a pull consumer's acknowledged
// position, a webhook target the delivery reactor pushes to, or a NATS JetStream sink the sink
// reactor publishes to (its subjects: natsSubject.ts), with its lifecycle:
// active ↔ paused by the user; active → dead (keeps failing) or stale (fell behind retention) by the
// service; replay brings dead and stale back to active.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SubscriptionChanges, type SubscriptionDefinition, type SubscriptionEvent, subscriptionEventSchemas, type SubscriptionKind, type SubscriptionStateName } from './events.ts';

export type { SubscriptionChanges, SubscriptionDefinition, SubscriptionEvent, SubscriptionKind, SubscriptionStateName } from './events.ts';

export type SubscriptionCommand =
  | ({ type: 'create'; subscriptionId: string; cursorSeq: number } & SubscriptionDefinition)
  | { type: 'update'; changes: SubscriptionChanges }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'acknowledge'; cursorSeq: number }
  | { type: 'replay'; cursorSeq: number }
  | { type: 'dispatch' }
  | { type: 'markDead'; reason: string }
  | { type: 'markStale'; reason: string }
  | { type: 'delete' };

export interface SubscriptionState {
  exists: boolean;
  deleted: boolean;
  subscriptionId: string;
  kind: SubscriptionKind;
  state: SubscriptionStateName;
  cursorSeq: number;
  replayGeneration: number;
}

const initialState = (): SubscriptionState => ({
  exists: false,
  deleted: false,
  subscriptionId: '',
  kind: 'pull',
  state: 'active',
  cursorSeq: 0,
  replayGeneration: 0,
});

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Subscription not found');
}

function invalidMove(state: SubscriptionStateName, action: string): AppError {
  return new AppError('CONFLICT', `A ${state} subscription cannot ${action}`, { extensions: { state } });
}

export const subscriptionDecider: Decider<SubscriptionState, SubscriptionCommand, SubscriptionEvent> = {
  eventTypes: eventTypesOf(subscriptionEventSchemas),
  initialState,
  evolve(state, event) {
    switch (event.type) {
      case 'cdc_subscription.created':
        return {
          ...state,
          exists: true,
          subscriptionId: event.data.subscriptionId,
          kind: event.data.kind,
          state: 'active',
          cursorSeq: event.data.cursorSeq,
        };
      case 'cdc_subscription.paused':
        return { ...state, state: 'paused' };
      case 'cdc_subscription.resumed':
        return { ...state, state: 'active' };
      case 'cdc_subscription.acknowledged':
        return { ...state, cursorSeq: event.data.cursorSeq };
      case 'cdc_subscription.replayed':
        return { ...state, cursorSeq: event.data.cursorSeq, replayGeneration: event.data.generation, state: event.data.state };
      case 'cdc_subscription.died':
        return { ...state, state: 'dead' };
      case 'cdc_subscription.went_stale':
        return { ...state, state: 'stale' };
      case 'cdc_subscription.deleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'create') {
      if (state.exists) throw new AppError('CONFLICT', 'Subscription already exists');
      const { type: _type, ...definition } = command;
      return [{ type: 'cdc_subscription.created', data: definition }];
    }
    if (!state.exists || state.deleted) {
      // The service's own transitions race with a delete; they then have nothing to do.
      if (command.type === 'markDead' || command.type === 'markStale') return [];
      throw notFound();
    }
    const subscriptionId = state.subscriptionId;
    switch (command.type) {
      case 'update':
        return Object.keys(command.changes).length === 0 ? [] : [{ type: 'cdc_subscription.updated', data: { subscriptionId, changes: command.changes } }];
      case 'pause':
        if (state.state !== 'active') throw invalidMove(state.state, 'be paused');
        return [{ type: 'cdc_subscription.paused', data: { subscriptionId } }];
      case 'resume':
        if (state.state !== 'paused') throw invalidMove(state.state, 'be resumed');
        return [{ type: 'cdc_subscription.resumed', data: { subscriptionId } }];
      case 'acknowledge':
        if (state.kind !== 'pull') throw new AppError('CONFLICT', `A ${state.kind} subscription advances by delivery, not by ack`);
        if (state.state === 'dead' || state.state === 'stale') throw invalidMove(state.state, 'be acknowledged; replay it first');
        if (command.cursorSeq < state.cursorSeq) {
          throw new AppError('ACK_REGRESSION', 'The cursor is behind the acknowledged one; acks only move forward', {
            path: ['body', 'cursor'],
          });
        }
        return command.cursorSeq === state.cursorSeq ? [] : [{ type: 'cdc_subscription.acknowledged', data: { subscriptionId, cursorSeq: command.cursorSeq } }];
      case 'replay': {
        const next = state.state === 'dead' || state.state === 'stale' ? 'active' : state.state;
        return [
          {
            type: 'cdc_subscription.replayed',
            data: { subscriptionId, cursorSeq: command.cursorSeq, generation: state.replayGeneration + 1, previousState: state.state, state: next },
          },
        ];
      }
      case 'dispatch':
        if (state.kind === 'pull') throw new AppError('CONFLICT', 'Only webhook and nats subscriptions are dispatched; pull ones are read with GET /cdc/events');
        if (state.state !== 'active') throw invalidMove(state.state, 'be dispatched');
        return [{ type: 'cdc_subscription.dispatch_requested', data: { subscriptionId } }];
      case 'markDead':
        return state.state === 'active' ? [{ type: 'cdc_subscription.died', data: { subscriptionId, reason: command.reason } }] : [];
      case 'markStale':
        return state.state === 'active' || state.state === 'paused'
          ? [{ type: 'cdc_subscription.went_stale', data: { subscriptionId, reason: command.reason } }]
          : [];
      case 'delete':
        return [{ type: 'cdc_subscription.deleted', data: { subscriptionId } }];
    }
  },
};
