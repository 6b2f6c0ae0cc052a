// The email area's commands (the command registry, docs/architecture.md): layouts and templates; and,
// bound to the area's runtime (the keys over addresses, the mailer and the send queue), sending, the
// suppression list and the unsubscribe of a token (`emailRuntimeCommands`, registered by the manifest).
import { z } from 'zod';
import { errors } from '../../../domain/shared/appError.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { uuidOr404 } from '../../server/routeKit.ts';
import { addressSchema } from './addresses.ts';
import type { EmailRuntime } from './emailRuntime.ts';
import { callerAddress } from './queries.ts';
import { layoutBody, layoutPatchBody, sendBody, suppressionBody, templateBody, templatePatchBody, testSendBody } from './schemas.ts';
import { sendEmail } from './sending.ts';
import { suppressAddress, unsubscribe as unsubscribeToken, unsuppressAddress } from './suppressions.ts';
import { createLayout, createTemplate, deleteLayout, deleteTemplate, updateLayout, updateTemplate } from './templates.ts';

const idInput = z.object({ id: z.string() });

const createLayoutCommand = defineCommand({
  name: 'email.createLayout',
  description: 'Create an email layout: an HTML shell with {{content}} exactly once.',
  input: layoutBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createLayout(context, siteId, input, metadata),
});

const updateLayoutCommand = defineCommand({
  name: 'email.updateLayout',
  description: "Change an email layout's name or HTML (a new version).",
  input: layoutPatchBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateLayout(context, siteId, uuidOr404(id, 'Layout'), changes, metadata);
  },
});

const deleteLayoutCommand = defineCommand({
  name: 'email.deleteLayout',
  description: 'Delete an email layout that no template uses.',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteLayout(context, siteId, uuidOr404(input.id, 'Layout'), metadata),
});

const createTemplateCommand = defineCommand({
  name: 'email.createTemplate',
  description: 'Create an email template { key, subject, html?, text?, layoutId?, category, variables? } (LiquidJS, HTML-escaped).',
  input: templateBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => createTemplate(context, siteId, input, metadata),
});

const updateTemplateCommand = defineCommand({
  name: 'email.updateTemplate',
  description: 'Change an email template (a new version; past versions stay readable).',
  input: templatePatchBody.safeExtend({ id: z.string() }),
  access: 'siteAdmin',
  dangerous: false,
  async handler(context, { siteId, input, metadata }) {
    const { id, ...changes } = input;
    return updateTemplate(context, siteId, uuidOr404(id, 'Template'), changes, metadata);
  },
});

const deleteTemplateCommand = defineCommand({
  name: 'email.deleteTemplate',
  description: 'Delete an email template (its versions stay for the sends that used them).',
  input: idInput,
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => deleteTemplate(context, siteId, uuidOr404(input.id, 'Template'), metadata),
});

export const emailCommands = {
  createLayout: createLayoutCommand,
  updateLayout: updateLayoutCommand,
  deleteLayout: deleteLayoutCommand,
  createTemplate: createTemplateCommand,
  updateTemplate: updateTemplateCommand,
  deleteTemplate: deleteTemplateCommand,
};

export const unsubscribeInput = z.object({ token: z.string().min(1).max(2_000), method: z.enum(['link', 'one_click']) }).strict();
export const unsuppressInput = z.object({ email: addressSchema }).strict();

/** The commands that need the email runtime: the manifest registers them when it starts. */
export function emailRuntimeCommands(runtime: EmailRuntime) {
  const send = defineCommand({
    name: 'email.send',
    description:
      'Send email: { to[], cc?, replyTo?, variables?, templateKey | inline }. Transactional: one message, delivered now. Marketing: one message per recipient, queued, skipping suppressed, non-consenting and restricted recipients.',
    input: sendBody,
    access: 'siteAdmin',
    // Mail leaves the system and cannot be recalled.
    dangerous: true,
    handler: (context, { siteId, input, metadata }) => sendEmail(context, runtime, siteId, input, metadata),
  });

  const sendTest = defineCommand({
    name: 'email.sendTest',
    description: "Send a test message (a template, or a built-in one) to the caller's own address, now.",
    input: testSendBody,
    access: 'siteAdmin',
    dangerous: false,
    async handler(context, { siteId, principal, input, metadata }) {
      const to = principal.kind === 'user' ? await context.database.withSite(siteId, (tx) => callerAddress(tx, siteId, principal.userId)) : null;
      if (!to) throw errors.validation('The caller has no email address (an API key bound to a role)', ['principal']);
      const message = input.templateKey
        ? { to: [to], templateKey: input.templateKey, ...(input.variables ? { variables: input.variables } : {}) }
        : { to: [to], inline: { subject: 'Test message', text: 'This is a test message: email from this site works.' } };
      return (await sendEmail(context, runtime, siteId, message, metadata, { test: true })).message;
    },
  });

  const suppress = defineCommand({
    name: 'email.suppress',
    description: "Add an address to the site's suppression list (marketing sends skip it); `created` is false when it was already there.",
    input: suppressionBody,
    access: 'siteAdmin',
    dangerous: false,
    handler: (context, { siteId, input, metadata }) => suppressAddress(context, runtime.keys, siteId, { email: input.email, reason: input.reason ?? 'manual' }, metadata),
  });

  const unsuppress = defineCommand({
    name: 'email.unsuppress',
    description: 'Remove an address from the suppression list (re-subscribe): marketing sends reach it again.',
    input: unsuppressInput,
    access: 'siteAdmin',
    // It overrides a recipient's own unsubscribe.
    dangerous: true,
    handler: (context, { siteId, input, metadata }) => unsuppressAddress(context, runtime.keys, siteId, input.email, metadata),
  });

  const unsubscribe = defineCommand({
    name: 'email.unsubscribe',
    description: "Unsubscribe the address an unsubscribe token names from the token's site (the token is the authority).",
    input: unsubscribeInput,
    access: 'public',
    dangerous: false,
    handler: (context, { siteId, input, metadata }) => unsubscribeToken(context, runtime.keys, siteId, input, metadata, ['body', 'token']),
  });

  return { send, sendTest, suppress, unsuppress, unsubscribe };
}
