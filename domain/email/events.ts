// Events of a site's email (docs/email.md): layouts and templates (versioned: every change carries
// the whole new content and its version), the suppression list (one stream per address hash), and
// sends (one stream per send: what was planned, then each batch's outcome per recipient hash).
// `email_unsubscribed`, `email_suppressed` and `email_unsuppressed` are named as the audit actions
// the spec lists. Addresses appear in clear only where the suppression list must show them.
import { z } from 'zod';
import type { EventOf } from '../shared/eventSchema.ts';

export const EMAIL_CATEGORIES = ['transactional', 'marketing'] as const;
export type EmailCategory = (typeof EMAIL_CATEGORIES)[number];

export const layoutContentSchema = z.object({ name: z.string(), html: z.string() });
export type LayoutContent = z.infer<typeof layoutContentSchema>;

export const templateContentSchema = z.object({
  key: z.string(),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  layoutId: z.string().nullable(),
  category: z.enum(EMAIL_CATEGORIES),
  variables: z.array(z.string()),
});
export type TemplateContent = z.infer<typeof templateContentSchema>;

export const emailTemplateEventSchemas = {
  'email_layout.created': z.object({ layoutId: z.string(), version: z.number().int(), layout: layoutContentSchema }),
  'email_layout.updated': z.object({ layoutId: z.string(), version: z.number().int(), layout: layoutContentSchema, changed: z.array(z.string()) }),
  'email_layout.deleted': z.object({ layoutId: z.string() }),
  'email_template.created': z.object({ templateId: z.string(), version: z.number().int(), template: templateContentSchema }),
  'email_template.updated': z.object({ templateId: z.string(), version: z.number().int(), template: templateContentSchema, changed: z.array(z.string()) }),
  'email_template.deleted': z.object({ templateId: z.string(), key: z.string() }),
};
export type EmailLayoutEvent = EventOf<Pick<typeof emailTemplateEventSchemas, 'email_layout.created' | 'email_layout.updated' | 'email_layout.deleted'>>;
export type EmailTemplateEvent = EventOf<
  Pick<typeof emailTemplateEventSchemas, 'email_template.created' | 'email_template.updated' | 'email_template.deleted'>
>;

export const SUPPRESSION_REASON_MAX = 500;

export const suppressionEventSchemas = {
  email_suppressed: z.object({ emailHash: z.string(), email: z.string(), reason: z.string() }),
  email_unsubscribed: z.object({ emailHash: z.string(), email: z.string(), method: z.enum(['link', 'one_click']) }),
  email_unsuppressed: z.object({ emailHash: z.string() }),
};
export type SuppressionEvent = EventOf<typeof suppressionEventSchemas>;

export const RECIPIENT_STATUSES = ['queued', 'sent', 'deferred', 'bounced', 'failed'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

const deliveryResultSchema = z.object({
  hash: z.string(),
  status: z.enum(['sent', 'deferred', 'bounced', 'failed']),
  messageId: z.string().nullable(),
  /** The relay's answer for this recipient (its code and first line, at most 200 characters). */
  response: z.string().nullable(),
});
export type DeliveryResult = z.infer<typeof deliveryResultSchema>;

export const sendEventSchemas = {
  'email_send.planned': z.object({
    sendId: z.string(),
    category: z.enum(EMAIL_CATEGORIES),
    /** Whether this is `POST /email/test` (no filtering). */
    test: z.boolean(),
    templateId: z.string().nullable(),
    templateKey: z.string().nullable(),
    templateVersion: z.number().int().nullable(),
    layoutId: z.string().nullable(),
    layoutVersion: z.number().int().nullable(),
    /** The keyed hashes of the recipients that will be sent to (to and cc). */
    recipients: z.array(z.string()),
    skipped: z.object({ suppressed: z.number().int(), noConsent: z.number().int(), restricted: z.number().int() }),
    /** The names of the variables sent, never their values (a name, a reset link: personal, and the log is forever). */
    variableNames: z.array(z.string()),
  }),
  'email_send.delivered': z.object({ sendId: z.string(), results: z.array(deliveryResultSchema) }),
};
export type SendEvent = EventOf<typeof sendEventSchemas>;

export const emailEventSchemas = { ...emailTemplateEventSchemas, ...suppressionEventSchemas, ...sendEventSchemas };
