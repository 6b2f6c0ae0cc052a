// The autonomy commands (the command registry): a person administering the site sets a level (a key
// could otherwise raise its own role past the promotions); anyone of the site
// asks for a promotion; a person administering the site decides it (an API key cannot: an agent
// never raises its own level).
import { z } from 'zod';
import { userPrincipal } from '../../auth/principal.ts';
import { defineCommand } from '../../runtime/appCommand.ts';
import { decidePromotion, requestPromotion, setAutonomy } from './autonomy.ts';
import { decidePromotionBody, requestPromotionBody, setAutonomyBody } from './autonomySchemas.ts';

const setLevel = defineCommand({
  name: 'agents.setAutonomy',
  description: "Set an agent role's autonomy level: read (read-only skills), stage (writes wait out a veto window) or act.",
  input: setAutonomyBody.safeExtend({ role: z.string() }),
  access: 'personAdmin',
  dangerous: true,
  handler: (context, { siteId, input, metadata }) => setAutonomy(context, siteId, input.role, input.level, metadata),
});

const requestLevel = defineCommand({
  name: 'agents.requestPromotion',
  description: "Ask an administrator to raise an agent role's autonomy level, with a reason.",
  input: requestPromotionBody,
  access: 'bearer',
  dangerous: false,
  handler: (context, { siteId, principal, input, metadata }) => requestPromotion(context, siteId, userPrincipal(principal), input, metadata),
});

const decideLevel = defineCommand({
  name: 'agents.decidePromotion',
  description: 'Approve (the level is set) or reject a promotion request; decided once.',
  input: decidePromotionBody.safeExtend({ id: z.string() }),
  access: 'personAdmin',
  dangerous: true,
  async handler(context, { siteId, principal, input, metadata }) {
    const { id, ...decision } = input;
    return decidePromotion(context, siteId, userPrincipal(principal), id, decision, metadata);
  },
});

export const autonomyCommands = { setAutonomy: setLevel, requestPromotion: requestLevel, decidePromotion: decideLevel };
