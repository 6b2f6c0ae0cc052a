// A site (tenant): created with its first administrator, soft-deleted (its data stays in the log).
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { type SiteEvent, siteEventSchemas } from './events.ts';
import { applySiteConfigChanges, initialSiteConfig, type SiteConfig, type SiteConfigChanges } from './siteConfig.ts';

export type { SiteEvent };

export const SITE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{1,62}$/;

export type SiteCommand =
  | { type: 'createSite'; siteId: string; name: string; now: Date }
  | { type: 'deleteSite'; siteId: string; now: Date }
  | { type: 'configureSite'; siteId: string; changes: SiteConfigChanges };

export interface SiteState {
  status: 'absent' | 'active' | 'deleted';
  config: SiteConfig;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The part of `changes` that differs from `config` (branding by key, theme overrides by mode). */
export function effectiveChanges(config: SiteConfig, changes: SiteConfigChanges): SiteConfigChanges {
  const effective: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (key === 'branding' && value) {
      const branding = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(([name, next]) => !same(config.branding[name as keyof SiteConfig['branding']], next)),
      );
      if (Object.keys(branding).length > 0) effective.branding = branding;
    } else if (key === 'themeOverrides' && value) {
      const modes = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(([mode, next]) => !same(config.themeOverrides[mode as 'light' | 'dark'], next)),
      );
      if (Object.keys(modes).length > 0) effective.themeOverrides = modes;
    } else if (key === 'themeOverrides') {
      if (!same(config.themeOverrides, { light: {}, dark: {} })) effective.themeOverrides = null;
    } else if (!same(config[key as keyof SiteConfig], value)) {
      effective[key] = value;
    }
  }
  return effective as SiteConfigChanges;
}

export const siteDecider: Decider<SiteState, SiteCommand, SiteEvent> = {
  eventTypes: eventTypesOf(siteEventSchemas),
  initialState: () => ({ status: 'absent', config: initialSiteConfig('') }),
  evolve(state, event) {
    switch (event.type) {
      case 'site.created':
        return { status: 'active', config: initialSiteConfig(event.data.name) };
      case 'site.deleted':
        return { ...state, status: 'deleted' };
      case 'site.configured':
        return { ...state, config: applySiteConfigChanges(state.config, event.data.changes) };
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
      case 'configureSite': {
        if (state.status !== 'active') throw new AppError('SITE_NOT_FOUND', `Site ${command.siteId} not found`);
        const changes = effectiveChanges(state.config, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'site.configured', data: { siteId: command.siteId, changes } }];
      }
    }
  },
};
