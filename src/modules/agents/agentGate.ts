// The agent governance's answer to the skill runner (src/modules/ai/skillRunner.ts), asked before every
// skill call (docs/agents.md "The gate"): the kill switch, the agent role's skills and collections,
// the active constitution's first matching rule, and the autonomy level (the role's, capped by the
// constitution). One statement reads all four, so the gate adds one round trip to a call.
import { evaluateConstitution, skillPatternMatches, type ConstitutionRule, type ConstitutionVerdict } from '../../../domain/agents/constitution.ts';
import { lowerLevel } from '../../../domain/agents/autonomy.ts';
import type { AutonomyLevelName, FreezeScope } from '../../../domain/agents/governanceEvents.ts';
import { sql } from '../../../infra/postgres/sql.ts';
import type { AppContext } from '../../runtime/context.ts';
import type { AgentGateDecision, AgentGateRequest } from '../ai/skillTypes.ts';

interface GateRow {
  freeze: { id: string; scope: FreezeScope; target: string | null } | null;
  role: { skills: string[]; collections: string[] } | null;
  level: AutonomyLevelName | null;
  constitution: { version: number; rules: ConstitutionRule[] } | null;
}

/** The constitution's verdict over every collection a call reaches: the first deny of any, the lowest autonomy cap of all. */
function verdictOver(rules: readonly ConstitutionRule[], call: { skill: string; role: string | null }, collections: readonly string[] | 'all'): ConstitutionVerdict {
  if (collections === 'all') return evaluateConstitution(rules, { ...call, collection: null, anyCollection: true });
  const verdicts = (collections.length === 0 ? [null] : collections).map((collection) => evaluateConstitution(rules, { ...call, collection }));
  const denial = verdicts.find((verdict) => verdict.decision === 'deny');
  const caps = verdicts.map((verdict) => verdict.maxAutonomy).filter((cap): cap is AutonomyLevelName => cap !== null);
  const maxAutonomy = caps.length === 0 ? null : caps.reduce(lowerLevel);
  return { ...(denial ?? verdicts[0]!), maxAutonomy };
}

const denied = (message: string, extensions: Record<string, unknown>): AgentGateDecision => ({ allowed: false, code: 'SKILL_DENIED', message, extensions });

export async function checkAgentGate(context: Pick<AppContext, 'database'>, request: AgentGateRequest): Promise<AgentGateDecision> {
  const { siteId, agent, skill, collections } = request;
  const role = agent.role;
  const [row] = await context.database.withSiteReads(siteId, (tx) =>
    tx.query<GateRow>(sql`
      SELECT
        (SELECT json_build_object('id', id, 'scope', scope, 'target', target) FROM agent_freezes
          WHERE site_id = ${siteId} AND lifted_at IS NULL
            AND (scope = 'site' OR (scope = 'role' AND target = ${role}::text) OR (scope = 'run' AND target = ${agent.runId ?? null}::text)
                 OR (scope = 'intent' AND target = ${agent.intentId ?? null}::text))
          ORDER BY frozen_at, id LIMIT 1) AS freeze,
        (SELECT json_build_object('skills', skills, 'collections', collections) FROM agent_roles WHERE site_id = ${siteId} AND name = ${role}::text) AS role,
        (SELECT level FROM agent_autonomy WHERE site_id = ${siteId} AND role = ${role}::text) AS level,
        (SELECT json_build_object('version', version, 'rules', rules) FROM agent_constitution_versions WHERE site_id = ${siteId} ORDER BY version DESC LIMIT 1) AS constitution`),
  );
  const { freeze, role: roleRow, level, constitution } = row!;
  if (freeze) {
    const what = freeze.scope === 'site' ? 'every agent of the site' : `the ${freeze.scope} "${freeze.target}"`;
    return {
      allowed: false,
      code: 'AGENT_FROZEN',
      message: `The kill switch froze ${what}: no skill call runs until the freeze is lifted`,
      extensions: { freezeId: freeze.id, scope: freeze.scope, target: freeze.target },
    };
  }
  if (role !== null) {
    if (!roleRow) return denied(`The agent role "${role}" does not exist`, { role });
    if (!roleRow.skills.some((pattern) => skillPatternMatches(pattern, skill.name))) {
      return denied(`The agent role "${role}" does not cover the skill "${skill.name}"`, { role, skill: skill.name });
    }
    if (!roleRow.collections.includes('*')) {
      if (collections === 'all') return denied(`The agent role "${role}" covers some collections, and "${skill.name}" may reach any: name them`, { role, collection: '*' });
      const outside = collections.find((name) => !roleRow.collections.includes(name));
      if (outside !== undefined) return denied(`The agent role "${role}" does not cover the collection "${outside}"`, { role, collection: outside });
    }
  }
  const verdict = constitution ? verdictOver(constitution.rules, { skill: skill.name, role }, collections) : null;
  if (verdict?.decision === 'deny') {
    const rule = verdict.rule!;
    return denied(`The constitution (version ${constitution!.version}, line ${rule.line}) denies it: "${rule.text}"`, {
      constitutionVersion: constitution!.version,
      rule: { line: rule.line, text: rule.text },
    });
  }
  const own: AutonomyLevelName = role === null ? 'act' : (level ?? 'read');
  const autonomy = verdict?.maxAutonomy ? lowerLevel(own, verdict.maxAutonomy) : own;
  // Autonomy `read`: read-only skills only.
  if (autonomy === 'read' && skill.mutates) {
    return denied(`At autonomy "read"${role === null ? '' : ` (the agent role "${role}")`}, an agent may only read: "${skill.name}" writes`, { autonomy, skill: skill.name });
  }
  return { allowed: true, autonomy, constitutionVersion: constitution?.version ?? null };
}
