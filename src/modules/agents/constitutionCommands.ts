// The constitution's commands (the command registry): site administrators. Activating changes what
// every agent may do, so it is dangerous; saving and compiling a draft change nothing agents see.
import { z } from 'zod';
import { defineCommand } from '../../runtime/appCommand.ts';
import { activateConstitution, compileConstitutionDraft, saveConstitutionDraft } from './constitution.ts';
import { saveDraftBody } from './constitutionSchemas.ts';

const saveDraft = defineCommand({
  name: 'agents.saveConstitutionDraft',
  description: "Replace the constitution's draft text (rules over skills and collections, one a line; docs/agents.md).",
  input: saveDraftBody,
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, input, metadata }) => saveConstitutionDraft(context, siteId, input.text, metadata),
});

const compile = defineCommand({
  name: 'agents.compileConstitution',
  description: "Compile the constitution's draft into rules (a bad line: 400 with its number).",
  input: z.object({}).strict(),
  access: 'siteAdmin',
  dangerous: false,
  handler: (context, { siteId, metadata }) => compileConstitutionDraft(context, siteId, metadata),
});

const activate = defineCommand({
  name: 'agents.activateConstitution',
  description: 'Make the compiled draft the next active version of the constitution.',
  input: z.object({}).strict(),
  access: 'siteAdmin',
  dangerous: true,
  handler: (context, { siteId, metadata }) => activateConstitution(context, siteId, metadata),
});

export const constitutionCommands = { saveDraft, compile, activate };
