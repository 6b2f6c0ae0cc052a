// The editorial area's commands (the command registry, docs/architecture.md): submit an item for
// review, approve it (which publishes it: dangerous), reject it. Who may: docs/publishing.md
// "Editorial review"; the row-level checks stay in the handlers.
import { defineCommand } from '../../runtime/appCommand.ts';
import type { AppCommandCall } from '../../runtime/appCommand.ts';
import { approveReview, rejectReview, REVIEWER_CAPABILITY, submitReview, type ReviewTarget } from './handlers.ts';
import { rejectBody, reviewParams, submitBody } from './schemas.ts';

async function targetOf({ siteId, input, metadata, access }: AppCommandCall<{ collection: string; id: string }>): Promise<ReviewTarget> {
  return { siteId, collection: input.collection, itemId: input.id, access: await access(), metadata };
}

const submit = defineCommand({
  name: 'editorial.submitReview',
  description: "Submit an item of a gated collection for review, optionally to one reviewer (a reviewer, or whoever may update the collection's items).",
  input: submitBody.safeExtend(reviewParams.shape),
  access: 'bearer',
  dangerous: false,
  handler: async (context, call) => submitReview(context, await targetOf(call), call.input.reviewerId ?? null),
});

const approve = defineCommand({
  name: 'editorial.approve',
  description: 'Approve an item in review: it is published in the same transaction; the answer has the published version.',
  input: reviewParams,
  access: 'bearer',
  capability: REVIEWER_CAPABILITY,
  dangerous: true,
  async handler(context, call) {
    const { review, itemVersion } = await approveReview(context, await targetOf(call));
    return { ...review, itemVersion };
  },
});

const reject = defineCommand({
  name: 'editorial.reject',
  description: 'Reject an item in review, with the reason.',
  input: rejectBody.safeExtend(reviewParams.shape),
  access: 'bearer',
  capability: REVIEWER_CAPABILITY,
  dangerous: false,
  handler: async (context, call) => rejectReview(context, await targetOf(call), call.input.reason),
});

export const editorialCommands = { submit, approve, reject };
