// A site's email layouts and templates (streams `<siteId>/email-layout/<id>` and
// `<siteId>/email-template/<id>`): each change carries the whole new content and the version it makes,
// so any version can be read back (docs/email.md "Versions"). Saving the same content records nothing.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import {
  type EmailLayoutEvent,
  type EmailTemplateEvent,
  type LayoutContent,
  type TemplateContent,
} from './events.ts';

export type { LayoutContent, TemplateContent };

interface VersionedState<Content> {
  status: 'absent' | 'active' | 'deleted';
  version: number;
  content: Content | null;
}

export type LayoutCommand = { type: 'createLayout'; layoutId: string; layout: LayoutContent } | { type: 'updateLayout'; layout: LayoutContent } | { type: 'deleteLayout' };
export type TemplateCommand =
  | { type: 'createTemplate'; templateId: string; template: TemplateContent }
  | { type: 'updateTemplate'; template: TemplateContent }
  | { type: 'deleteTemplate' };

/** The keys whose values differ (content values are strings, nulls and arrays of strings). */
function changedKeys<Content extends object>(before: Content, after: Content): string[] {
  return (Object.keys(after) as (keyof Content & string)[]).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).sort();
}

const initial = <Content>(): VersionedState<Content> => ({ status: 'absent', version: 0, content: null });

export const layoutDecider: Decider<VersionedState<LayoutContent> & { layoutId: string | null }, LayoutCommand, EmailLayoutEvent> = {
  eventTypes: ['email_layout.created', 'email_layout.updated', 'email_layout.deleted'],
  initialState: () => ({ ...initial<LayoutContent>(), layoutId: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'email_layout.created':
        return { status: 'active', version: event.data.version, content: event.data.layout, layoutId: event.data.layoutId };
      case 'email_layout.updated':
        return { ...state, version: event.data.version, content: event.data.layout };
      case 'email_layout.deleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    if (command.type === 'createLayout') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The layout already exists');
      return [{ type: 'email_layout.created', data: { layoutId: command.layoutId, version: 1, layout: command.layout } }];
    }
    if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Layout not found');
    if (command.type === 'deleteLayout') return [{ type: 'email_layout.deleted', data: { layoutId: state.layoutId! } }];
    const changed = changedKeys(state.content!, command.layout);
    if (changed.length === 0) return [];
    return [{ type: 'email_layout.updated', data: { layoutId: state.layoutId!, version: state.version + 1, layout: command.layout, changed } }];
  },
};

export const templateDecider: Decider<VersionedState<TemplateContent> & { templateId: string | null }, TemplateCommand, EmailTemplateEvent> = {
  eventTypes: ['email_template.created', 'email_template.updated', 'email_template.deleted'],
  initialState: () => ({ ...initial<TemplateContent>(), templateId: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'email_template.created':
        return { status: 'active', version: event.data.version, content: event.data.template, templateId: event.data.templateId };
      case 'email_template.updated':
        return { ...state, version: event.data.version, content: event.data.template };
      case 'email_template.deleted':
        return { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    if (command.type === 'createTemplate') {
      if (state.status !== 'absent') throw new AppError('CONFLICT', 'The template already exists');
      return [{ type: 'email_template.created', data: { templateId: command.templateId, version: 1, template: command.template } }];
    }
    if (state.status !== 'active') throw new AppError('NOT_FOUND', 'Template not found');
    if (command.type === 'deleteTemplate') return [{ type: 'email_template.deleted', data: { templateId: state.templateId!, key: state.content!.key } }];
    const changed = changedKeys(state.content!, command.template);
    if (changed.length === 0) return [];
    return [
      { type: 'email_template.updated', data: { templateId: state.templateId!, version: state.version + 1, template: command.template, changed } },
    ];
  },
};
