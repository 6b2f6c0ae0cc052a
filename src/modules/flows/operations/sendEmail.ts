// send_email: runs email.send through the registry (as the flow's principal: a site administrator's
// command), so sending, suppression and consent behave as for the route (docs/email.md).
import { z } from 'zod';
import { MAX_MARKETING_RECIPIENTS, MAX_TRANSACTIONAL_RECIPIENTS } from '../../email/schemas.ts';
import { defineOperation } from '../operation.ts';
import { commandRun, objectOption, renderedObject } from './optionShapes.ts';

const address = z.string().min(1).max(320);

const inlineMessage = z
  .object({ subject: z.string().min(1).max(998), html: z.string().optional(), text: z.string().optional() })
  .strict()
  .describe(
    "A message written here: its subject, html and text are the email's own Liquid templates, rendered by the email area with `variables` (HTML-escaped in html). " +
      'Not rendered with the run data: pass run data through `variables`.',
  );

export const sendEmailOperation = defineOperation({
  key: 'send_email',
  description: "Sends email (email.send): a template by `templateKey`, or an `inline` message, to `to`; outputs the send ({ message, queued }). A refusal or an undelivered transactional message fails the node.",
  options: z
    .object({
      to: z
        .union([address, z.array(address).min(1).max(MAX_MARKETING_RECIPIENTS)])
        .describe('One address or an array of them (templates allowed: "{{ $trigger.item.email }}").'),
      cc: z.array(address).max(MAX_TRANSACTIONAL_RECIPIENTS).optional().describe('Copies (transactional sends only).'),
      replyTo: address.optional().describe('The Reply-To address.'),
      templateKey: z.string().min(1).max(100).optional().describe('The key of an email template of the site.'),
      inline: inlineMessage.optional(),
      variables: objectOption('The template variables (string values may be templates over the run data), or "{{ $last }}".').optional(),
    })
    .strict()
    .superRefine((options, issues) => {
      if ((options.templateKey === undefined) === (options.inline === undefined)) {
        issues.addIssue({ code: 'custom', message: 'Give exactly one of templateKey and inline', path: [options.inline === undefined ? 'templateKey' : 'inline'] });
      }
    }),
  sideEffects: true,
  raw: ['inline'],
  async run(options, call) {
    const input = {
      to: Array.isArray(options.to) ? options.to : [options.to],
      ...(options.cc ? { cc: options.cc } : {}),
      ...(options.replyTo ? { replyTo: options.replyTo } : {}),
      ...(options.templateKey !== undefined ? { templateKey: options.templateKey } : {}),
      ...(options.inline ? { inline: options.inline } : {}),
      ...(options.variables !== undefined ? { variables: renderedObject(options.variables, 'variables') } : {}),
    };
    return call.context.commands.run('email.send', input, commandRun(call));
  },
});
