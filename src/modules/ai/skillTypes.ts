// The words the AI copilot, the agent API and the MCP endpoint share (docs/ai.md): who acts (an
// agent for a principal), what it asks (a skill call: a registered command or query of the command
// registry flagged `skill`), what came of it, and the questions the skill runner asks the agent
// governance (kill switch, agent role, autonomy, constitution) before it runs anything.
import type { UserPrincipal } from '../../auth/principal.ts';
import type { CommandClient } from '../../runtime/commandRegistry.ts';

/** An agent acting for a principal: the copilot's conversation, a goal's run, an MCP session. */
export interface AgentIdentity {
  /** Recorded as the events' `actor.id` (actor.kind 'agent'): `conversation:<id>`, `goal:<id>`, `mcp:<id>`. */
  id: string;
  /** The agent role it acts under (the skills and collections it may use), null for none: the principal's own grants. */
  role: string | null;
  /** The goal run it belongs to (kill-switch scope `run`). */
  runId?: string | null;
  /** The intent it serves (kill-switch scope `intent`). */
  intentId?: string | null;
}

/** One skill call: a skill's name (a command's, `items.create`) and its input. */
export interface SkillCall {
  skill: string;
  input: Record<string, unknown>;
}

/** What came of a skill call. */
export type SkillOutcome =
  | { status: 'executed'; skill: string; data: unknown }
  | { status: 'pending_approval'; skill: string; approvalId: string; message: string }
  | { status: 'staged'; skill: string; stagedId: string; runAfter: string; message: string };

/** Where a call that already passed its gate comes from: a person's approval, or a staged action now due. */
export type SkillCallOrigin = { kind: 'approval'; approvalId: string; approvedBy: string } | { kind: 'staged'; stagedId: string };

export interface RunSkillOptions {
  siteId: string;
  /** The principal the agent acts for: the skill runs with its grants (intersected with the agent role's). */
  principal: UserPrincipal;
  agent: AgentIdentity;
  call: SkillCall;
  requestId: string;
  client?: CommandClient;
  /** Set when an approval or a due staged action runs the call: no second approval or staging. */
  origin?: SkillCallOrigin;
}

/** How far an agent role may go without a person: read only, stage writes (run after a veto window), or act. Dangerous skills always wait for an approval. */
export type AutonomyLevel = 'read' | 'stage' | 'act';

/** What the skill runner asks the agent governance before a call (src/modules/agents/agentGate.ts). */
export interface AgentGateRequest {
  siteId: string;
  agent: AgentIdentity;
  skill: { name: string; dangerous: boolean; /** Writes (a command), not a read-only query. */ mutates: boolean };
  /** Every collection the call reaches (src/modules/ai/touchedCollections.ts): the one it names, those its relation paths cross, every one a search covers (`all`); none: []. */
  collections: readonly string[] | 'all';
  input: Record<string, unknown>;
}

export type AgentGateDecision =
  | { allowed: true; autonomy: AutonomyLevel; constitutionVersion: number | null }
  | { allowed: false; code: 'AGENT_FROZEN' | 'SKILL_DENIED'; message: string; extensions?: Record<string, unknown> };

/** A skill as agents see it (a provider's tool, an MCP tool). */
export interface SkillDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  dangerous: boolean;
  mutates: boolean;
  capability: string | null;
}

/** What a provider makes of a message: a skill call, or a plain reply (no skill fits). */
export type IntentResolution = { kind: 'call'; call: SkillCall; reply?: string } | { kind: 'reply'; text: string };

/** The copilot's provider port: the built-in intent parser, or an OpenAI-compatible chat-completions API with tool calling. */
export interface IntentProvider {
  readonly name: 'builtin' | 'openai';
  resolve(request: { message: string; skills: readonly SkillDescriptor[]; signal?: AbortSignal }): Promise<IntentResolution>;
}
