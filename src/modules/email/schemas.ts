// The shapes the email routes take and answer (docs/email.md), shared with the area's commands.
import { z } from 'zod';
import { EMAIL_CATEGORIES, RECIPIENT_STATUSES, SUPPRESSION_REASON_MAX, templateContentSchema } from '../../../domain/email/events.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../../domain/shared/jsonDepth.ts';
import { addressSchema } from './addresses.ts';
import { MAX_SOURCE_LENGTH } from './render.ts';

/** Recipients of one transactional message (to and cc), and of one marketing send. */
export const MAX_TRANSACTIONAL_RECIPIENTS = 50;
export const MAX_MARKETING_RECIPIENTS = 10_000;

export const templateKeySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'must be 1–100 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit');
const subjectSchema = z
  .string()
  .min(1)
  .max(998)
  .refine((subject) => !/[\r\n]/.test(subject), 'must be one line');
const sourceSchema = z.string().max(MAX_SOURCE_LENGTH);
const variableNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'must be a name of letters, digits and "_"');
/**
 * Variables of a preview or a send: a JSON object, nested at most MAX_JSON_DEPTH deep (the HTTP body
 * parser checks that already; a flow or an AI skill calling the command has no parser in front).
 */
export const variablesSchema = z
  .record(z.string(), z.unknown())
  .refine((variables) => !nestsTooDeep(variables), `must nest at most ${MAX_JSON_DEPTH} levels`);

function nestsTooDeep(value: unknown): boolean {
  try {
    return jsonNestsDeeperThan(JSON.stringify(value));
  } catch {
    return true;
  }
}

export const layoutBody = z.object({ name: z.string().trim().min(1).max(200), html: sourceSchema.min(1) }).strict();
export const layoutPatchBody = layoutBody.partial().strict();

const templateFields = {
  key: templateKeySchema,
  subject: subjectSchema,
  html: sourceSchema.nullable(),
  text: sourceSchema.nullable(),
  layoutId: z.string().nullable(),
  category: z.enum(EMAIL_CATEGORIES),
  variables: z.array(variableNameSchema).max(100),
};
export const templateBody = z.object(templateFields).partial({ html: true, text: true, layoutId: true, category: true, variables: true }).strict();
export const templatePatchBody = z.object(templateFields).partial().strict();
export type TemplateBody = z.infer<typeof templateBody>;
export type TemplatePatch = z.infer<typeof templatePatchBody>;

export const previewBody = z.object({ variables: variablesSchema.optional(), version: z.number().int().min(1).max(2_147_483_647).optional() }).strict();

const inlineMessage = z
  .object({ subject: subjectSchema, html: sourceSchema.optional(), text: sourceSchema.optional() })
  .strict()
  .refine((inline) => inline.html !== undefined || inline.text !== undefined, { message: 'needs html or text', path: ['html'] });

export const sendBody = z
  .object({
    to: z.array(addressSchema).min(1, 'needs at least one recipient').max(MAX_MARKETING_RECIPIENTS),
    cc: z.array(addressSchema).max(MAX_TRANSACTIONAL_RECIPIENTS).optional(),
    replyTo: addressSchema.optional(),
    variables: variablesSchema.optional(),
    templateKey: templateKeySchema.optional(),
    inline: inlineMessage.optional(),
  })
  .strict()
  .superRefine((body, issues) => {
    if (body.templateKey !== undefined && body.inline !== undefined) {
      issues.addIssue({ code: 'custom', message: 'Send exactly one of templateKey and inline, not both', path: ['inline'] });
    } else if (body.templateKey === undefined && body.inline === undefined) {
      issues.addIssue({ code: 'custom', message: 'Send exactly one of templateKey and inline', path: ['templateKey'] });
    }
  });
export type SendBody = z.infer<typeof sendBody>;

export const testSendBody = z.object({ templateKey: templateKeySchema.optional(), variables: variablesSchema.optional() }).strict();

export const suppressionBody = z.object({ email: addressSchema, reason: z.string().trim().min(1).max(SUPPRESSION_REASON_MAX).optional() }).strict();

export const layoutSchema = z.object({
  id: z.string(),
  name: z.string(),
  html: z.string(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type LayoutView = z.infer<typeof layoutSchema>;

/** A template's content as its events carry it, with the version it is. */
const templateContentView = { ...templateContentSchema.shape, version: z.number() };
export const templateSchema = z.object({ id: z.string(), ...templateContentView, createdAt: z.string(), updatedAt: z.string() });
export type TemplateView = z.infer<typeof templateSchema>;
export const templateVersionSchema = z.object({ templateId: z.string(), ...templateContentView, createdAt: z.string() });
export type TemplateVersionView = z.infer<typeof templateVersionSchema>;

export const renderedSchema = z.object({ subject: z.string(), html: z.string().nullable(), text: z.string(), version: z.number().nullable() });

export const SEND_STATUSES = ['queued', 'completed', 'failed'] as const;
export const messageSchema = z.object({
  id: z.string(),
  category: z.enum(EMAIL_CATEGORIES),
  templateKey: z.string().nullable(),
  templateId: z.string().nullable(),
  templateVersion: z.number().nullable(),
  test: z.boolean(),
  status: z.enum(SEND_STATUSES),
  counts: z.object({
    recipients: z.number(),
    queued: z.number(),
    sent: z.number(),
    deferred: z.number(),
    bounced: z.number(),
    failed: z.number(),
    skipped: z.number(),
  }),
  skipped: z.object({ suppressed: z.number(), noConsent: z.number(), restricted: z.number() }),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type MessageView = z.infer<typeof messageSchema>;

export const recipientSchema = z.object({
  hash: z.string(),
  status: z.enum(RECIPIENT_STATUSES),
  messageId: z.string().nullable(),
  response: z.string().nullable(),
  attempts: z.number(),
  updatedAt: z.string(),
});
export type RecipientView = z.infer<typeof recipientSchema>;

export const suppressionSchema = z.object({ email: z.string(), reason: z.string(), createdAt: z.string() });
export type SuppressionView = z.infer<typeof suppressionSchema>;

export const capabilitiesSchema = z.object({
  configured: z.boolean(),
  transport: z.enum(['smtp']).nullable(),
  from: z.string().nullable(),
  features: z.array(z.string()),
});
