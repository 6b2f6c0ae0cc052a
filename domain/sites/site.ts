// A site (tenant): created with its first administrator, soft-deleted (its data stays in the log).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import type { SiteEvent } from './events.ts';

export type { SiteEvent };

export const SITE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{1,62}$/;

export type SiteCommand =
  | { type: 'createSite'; siteId: string; name: string; now: Date }
  | { type: 'deleteSite'; siteId: string; now: Date };

export interface SiteState {
  status: 'absent' | 'active' | 'deleted';
}

export const siteDecider: Decider<SiteState, SiteCommand, SiteEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve(state, event) {
    switch (event.type) {
      case 'site.created':
        return { status: 'active' };
      case 'site.deleted':
        return { status: 'deleted' };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'createSite':
        // The id names streams, headers and subdomains: every way in (HTTP, CLI, bootstrap) gets this rule.
        if (!SITE_ID_PATTERN.test(command.siteId)) {
          throw new AppError('VALIDATION_FAILED', 'A site id is 2 to 63 lowercase letters, digits, - and _, starting with a letter or digit', {
            path: ['id'],
          });
        }
        if (state.status !== 'absent') {
          throw new AppError('CONFLICT', `Site ${command.siteId} already exists`, { path: ['id'] });
        }
        return [{ type: 'site.created', data: { siteId: command.siteId, name: command.name, createdAt: command.now.toISOString() } }];
      case 'deleteSite':
        if (state.status !== 'active') throw new AppError('SITE_NOT_FOUND', `Site ${command.siteId} not found`);
        return [{ type: 'site.deleted', data: { siteId: command.siteId, deletedAt: command.now.toISOString() } }];
    }
  },
};
