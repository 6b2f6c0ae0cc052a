// A trusted external identity provider of one site: tokens whose `iss` matches are verified against
// its public keys, fail-closed, and their role claims mapped to the site's roles (default deny).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { ISSUER_ALGORITHMS, type IssuerAlgorithm, type IssuerConfig, type IssuerEvent, issuerEventSchemas, type RoleTarget } from './events.ts';

export { ISSUER_ALGORITHMS, type IssuerAlgorithm, type IssuerConfig, type IssuerEvent, type RoleTarget };

export const MAX_CLOCK_SKEW_SECONDS = 300;

export type IssuerCommand =
  | { type: 'createIssuer'; issuerId: string; config: IssuerConfig }
  | { type: 'updateIssuer'; config: IssuerConfig }
  | { type: 'deleteIssuer' };

export interface IssuerState {
  status: 'absent' | 'active' | 'deleted';
  issuerId: string | null;
  config: IssuerConfig | null;
}

function invalid(message: string, path: (string | number)[]): AppError {
  return new AppError('VALIDATION_FAILED', message, { path: ['body', ...path], unprocessable: true });
}

/** The invariants of an issuer, checked on every create and update (the route's schema checks shapes). */
export function assertValidIssuerConfig(config: IssuerConfig): void {
  if ((config.jwksUri === null) === (config.discoveryUrl === null)) {
    throw invalid('Give exactly one of jwksUri or discoveryUrl', config.jwksUri === null ? ['jwksUri'] : ['discoveryUrl']);
  }
  if (config.algorithms.length === 0) throw invalid('At least one algorithm is required', ['algorithms']);
  config.algorithms.forEach((algorithm, index) => {
    if (!(ISSUER_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw invalid(`Algorithm ${String(algorithm)} is not allowed: asymmetric algorithms only (RS*, PS*, ES*)`, ['algorithms', index]);
    }
  });
  if (!Number.isInteger(config.clockSkewSeconds) || config.clockSkewSeconds < 0 || config.clockSkewSeconds > MAX_CLOCK_SKEW_SECONDS) {
    throw invalid(`clockSkewSeconds must be an integer from 0 to ${MAX_CLOCK_SKEW_SECONDS}`, ['clockSkewSeconds']);
  }
}

export const issuerDecider: Decider<IssuerState, IssuerCommand, IssuerEvent> = {
  eventTypes: eventTypesOf(issuerEventSchemas),
  initialState: () => ({ status: 'absent', issuerId: null, config: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'issuer.created':
      case 'issuer.updated':
        return { status: 'active', issuerId: event.data.issuerId, config: event.data.config };
      case 'issuer.deleted':
        return { ...state, status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createIssuer':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Issuer already exists');
        assertValidIssuerConfig(command.config);
        return [{ type: 'issuer.created', data: { issuerId: command.issuerId, config: command.config } }];
      case 'updateIssuer':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Issuer not found');
        assertValidIssuerConfig(command.config);
        if (JSON.stringify(command.config) === JSON.stringify(state.config)) return [];
        return [{ type: 'issuer.updated', data: { issuerId: state.issuerId!, config: command.config } }];
      case 'deleteIssuer':
        if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Issuer not found');
        return [{ type: 'issuer.deleted', data: { issuerId: state.issuerId! } }];
    }
  },
};
