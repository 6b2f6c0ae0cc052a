// The privacy area's commands (the command registry, docs/privacy.md): the signed-in person's
// consents and restriction of processing (never an API key: a key speaks for no one's privacy
// choices), and the site administrators' retention run.
import { z } from 'zod';
import { CONSENT_TYPES } from '../../../domain/privacy/events.ts';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { setConsent, setRestriction } from './handlers.ts';
import { runRetention } from './retention.ts';
import { consentBody, restrictionBody } from './schemas.ts';

const setConsentCommand = defineCommand({
  name: 'privacy.setConsent',
  description: "Grant or withdraw one of the signed-in person's consents (its source and version are recorded).",
  input: consentBody.safeExtend({ type: z.enum(CONSENT_TYPES) }),
  access: 'person',
  dangerous: false,
  async handler(context, { siteId, principal, input, metadata }) {
    const { type, ...consent } = input;
    return setConsent(context, siteId, userPrincipal(principal).userId, type, consent, metadata);
  },
});

const setRestrictionCommand = defineCommand({
  name: 'privacy.setRestriction',
  description: "Restrict, or lift the restriction of, the processing of the signed-in person's data.",
  input: restrictionBody,
  access: 'person',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => setRestriction(context, siteId, userPrincipal(principal).userId, input, metadata),
});

const runRetentionCommand = defineCommand({
  name: 'privacy.runRetention',
  description: "Run the site's retention now: removes what is past its horizon (ended sessions).",
  input: z.object({}).strict(),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId }) => runRetention(context, siteId),
});

export const privacyCommands = { setConsent: setConsentCommand, setRestriction: setRestrictionCommand, runRetention: runRetentionCommand };
