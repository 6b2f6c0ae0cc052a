// A token sent by email (verify the address, reset the password, accept an invitation): single-use,
// expiring, kept only as a hash. Issuing and consuming it are events of its own stream.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type EmailTokenEvent, emailTokenEventSchemas, type EmailTokenPurpose } from './events.ts';

export type { EmailTokenEvent, EmailTokenPurpose };

export type EmailTokenCommand =
  | { type: 'issueEmailToken'; tokenId: string; userId: string; purpose: EmailTokenPurpose; tokenHash: string; expiresAt: Date }
  | { type: 'consumeEmailToken'; presentedTokenHash: string; purpose: EmailTokenPurpose; now: Date };

export interface EmailTokenState {
  status: 'absent' | 'issued' | 'consumed';
  tokenId: string | null;
  userId: string | null;
  purpose: EmailTokenPurpose | null;
  tokenHash: string | null;
  expiresAt: string | null;
}

/** Every refusal looks alike to the caller except for `reason`, so a client can offer "send a new link". */
function refused(reason: 'invalid' | 'used' | 'expired'): AppError {
  const messages = { invalid: 'The token is not valid', used: 'The token was already used', expired: 'The token has expired' };
  return new AppError('VALIDATION_FAILED', messages[reason], { path: ['body', 'token'], extensions: { reason } });
}

export const emailTokenDecider: Decider<EmailTokenState, EmailTokenCommand, EmailTokenEvent> = {
  eventTypes: eventTypesOf(emailTokenEventSchemas),
  initialState: () => ({ status: 'absent', tokenId: null, userId: null, purpose: null, tokenHash: null, expiresAt: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'email_token.issued':
        return {
          status: 'issued',
          tokenId: event.data.tokenId,
          userId: event.data.userId,
          purpose: event.data.purpose,
          tokenHash: event.data.tokenHash,
          expiresAt: event.data.expiresAt,
        };
      case 'email_token.consumed':
        return { ...state, status: 'consumed' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'issueEmailToken':
        if (state.status !== 'absent') throw new AppError('CONFLICT', 'Token already issued');
        return [
          {
            type: 'email_token.issued',
            data: {
              tokenId: command.tokenId,
              userId: command.userId,
              purpose: command.purpose,
              tokenHash: command.tokenHash,
              expiresAt: command.expiresAt.toISOString(),
            },
          },
        ];
      case 'consumeEmailToken':
        if (state.status === 'absent' || state.purpose !== command.purpose || state.tokenHash !== command.presentedTokenHash) {
          throw refused('invalid');
        }
        if (state.status === 'consumed') throw refused('used');
        if (new Date(state.expiresAt!) <= command.now) throw refused('expired');
        return [{ type: 'email_token.consumed', data: { tokenId: state.tokenId!, userId: state.userId!, purpose: state.purpose } }];
    }
  },
};
