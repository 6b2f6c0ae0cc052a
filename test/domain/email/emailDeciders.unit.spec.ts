// The email deciders, given events / when command / then events: templates and layouts are versioned
// (every change carries the whole content and its version), suppressions record only a change.
import { describe, it } from 'vitest';
import { layoutDecider, templateDecider, type TemplateContent } from '../../../domain/email/emailTemplate.ts';
import { suppressionDecider } from '../../../domain/email/suppression.ts';
import { deciderSpecification } from '../deciderSpecification.ts';

const templateId = '0190d6a0-0000-7000-8000-000000000001';
const layoutId = '0190d6a0-0000-7000-8000-000000000002';
const content: TemplateContent = { key: 'welcome', subject: 'Hi', html: '<p>Hi</p>', text: null, layoutId: null, category: 'transactional', variables: [] };
const created = { type: 'email_template.created' as const, data: { templateId, version: 1, template: content } };

describe('template decider', () => {
  const spec = deciderSpecification(templateDecider);

  it('creates a template at version 1, once', () => {
    spec.given([]).when({ type: 'createTemplate', templateId, template: content }).then([created]);
    spec.given([created]).when({ type: 'createTemplate', templateId, template: content }).thenThrows('CONFLICT', 409);
  });

  it('records each change as the next version with the whole content and the keys that changed, and nothing for the same content', () => {
    const changed = { ...content, subject: 'Hello', category: 'marketing' as const };
    spec
      .given([created])
      .when({ type: 'updateTemplate', template: changed })
      .then([{ type: 'email_template.updated', data: { templateId, version: 2, template: changed, changed: ['category', 'subject'] } }]);
    const second = { type: 'email_template.updated' as const, data: { templateId, version: 2, template: changed, changed: ['category', 'subject'] } };
    spec
      .given([created, second])
      .when({ type: 'updateTemplate', template: content })
      .then([{ type: 'email_template.updated', data: { templateId, version: 3, template: content, changed: ['category', 'subject'] } }]);
    spec.given([created]).when({ type: 'updateTemplate', template: content }).thenNothing();
  });

  it('refuses to change or delete a template that does not exist or was deleted; a delete names the key it frees', () => {
    const deleted = { type: 'email_template.deleted' as const, data: { templateId, key: 'welcome' } };
    spec.given([]).when({ type: 'updateTemplate', template: content }).thenThrows('NOT_FOUND', 404);
    spec.given([created]).when({ type: 'deleteTemplate' }).then([deleted]);
    spec.given([created, deleted]).when({ type: 'deleteTemplate' }).thenThrows('NOT_FOUND', 404);
  });
});

describe('layout decider', () => {
  const spec = deciderSpecification(layoutDecider);
  const layout = { name: 'Default', html: '<main>{{content}}</main>' };
  const layoutCreated = { type: 'email_layout.created' as const, data: { layoutId, version: 1, layout } };

  it('versions a layout like a template', () => {
    spec.given([]).when({ type: 'createLayout', layoutId, layout }).then([layoutCreated]);
    spec
      .given([layoutCreated])
      .when({ type: 'updateLayout', layout: { ...layout, name: 'Plain' } })
      .then([{ type: 'email_layout.updated', data: { layoutId, version: 2, layout: { ...layout, name: 'Plain' }, changed: ['name'] } }]);
    spec.given([layoutCreated]).when({ type: 'updateLayout', layout }).thenNothing();
    spec.given([]).when({ type: 'deleteLayout' }).thenThrows('NOT_FOUND', 404);
  });
});

describe('suppression decider', () => {
  const spec = deciderSpecification(suppressionDecider);
  const suppressed = { type: 'email_suppressed' as const, data: { emailHash: 'h', email: 'a@example.test', reason: 'manual' } };

  it('suppresses once: a second suppression or an unsubscribe of a suppressed address records nothing', () => {
    spec.given([]).when({ type: 'suppress', emailHash: 'h', email: 'a@example.test', reason: 'manual' }).then([suppressed]);
    spec.given([suppressed]).when({ type: 'suppress', emailHash: 'h', email: 'a@example.test', reason: 'bounce' }).thenNothing();
    spec.given([suppressed]).when({ type: 'unsubscribe', emailHash: 'h', email: 'a@example.test', method: 'link' }).thenNothing();
  });

  it('records an unsubscribe with its method, and re-subscribes only a suppressed address', () => {
    const unsubscribed = { type: 'email_unsubscribed' as const, data: { emailHash: 'h', email: 'a@example.test', method: 'one_click' as const } };
    spec.given([]).when({ type: 'unsubscribe', emailHash: 'h', email: 'a@example.test', method: 'one_click' }).then([unsubscribed]);
    spec.given([unsubscribed]).when({ type: 'unsuppress' }).then([{ type: 'email_unsuppressed', data: { emailHash: 'h' } }]);
    spec.given([]).when({ type: 'unsuppress' }).thenThrows('NOT_FOUND', 404);
    spec.given([suppressed, { type: 'email_unsuppressed', data: { emailHash: 'h' } }]).when({ type: 'unsuppress' }).thenThrows('NOT_FOUND', 404);
  });
});
