// Constitution commands (docs/agents.md "Constitution"): save the draft, compile it (the rules are
// recorded for its revision; a bad line records nothing and answers 400 at its number), activate
// the compiled draft as the next version. Every version stays in the log and the read model.
import { constitutionDecider } from '../../../domain/agents/constitution.ts';
import { streamId, type EventMetadata } from '../../../domain/shared/events.ts';
import { handleCommand, inSiteTransaction, openCommandIn } from '../../runtime/commandHandler.ts';
import type { AppContext } from '../../runtime/context.ts';
import { compileWithSkills, findDraft, findVersion } from './constitutionQueries.ts';
import type { DraftView, VersionView } from './constitutionSchemas.ts';

const constitutionStream = (siteId: string) => streamId(siteId, 'agent-constitution');

export async function saveConstitutionDraft(context: AppContext, siteId: string, text: string, metadata: EventMetadata): Promise<DraftView> {
  await handleCommand(context, { siteId, streamId: constitutionStream(siteId), decider: constitutionDecider, command: { type: 'saveDraft', text }, metadata, lock: true });
  return (await context.database.withSiteReads(siteId, (tx) => findDraft(tx, siteId)))!;
}

export async function compileConstitutionDraft(context: AppContext, siteId: string, metadata: EventMetadata): Promise<DraftView> {
  return inSiteTransaction(context, siteId, async (tx) => {
    const opened = await openCommandIn(tx, context.projections, { siteId, streamId: constitutionStream(siteId), decider: constitutionDecider, metadata, lock: true });
    const draft = opened.state.draft;
    // No draft: the decider's 409.
    const rules = draft ? compileWithSkills(context, draft.text) : [];
    await opened.decide({ type: 'recordCompile', revision: draft?.revision ?? 0, rules });
    return (await findDraft(tx, siteId))!;
  });
}

export async function activateConstitution(context: AppContext, siteId: string, metadata: EventMetadata): Promise<VersionView> {
  await handleCommand(context, { siteId, streamId: constitutionStream(siteId), decider: constitutionDecider, command: { type: 'activate' }, metadata, lock: true });
  return (await context.database.withSiteReads(siteId, (tx) => findVersion(tx, siteId, 'active')))!;
}
