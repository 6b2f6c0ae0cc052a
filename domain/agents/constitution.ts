// The constitution (docs/agents.md "Constitution"): a site's rules over agents' skill calls, written
// in a small line language, compiled to rules (never evaluated as code), checked on every skill call
// by the agent gate. One stream per site (`<siteId>/agent-constitution`): the draft (each save a
// revision), each compile of a revision, and each activation (the next version; every one is kept).
//
//   # a comment; blank lines are skipped
//   allow <skills> [on <collections>] [for <roles>]
//   deny  <skills> [on <collections>] [for <roles>]
//   max autonomy <read|stage|act> [for <roles>]
//
// Lists are comma-separated; `*` is any. A skill is a registered skill's name, `<area>.*` or `*`.
// The first allow or deny rule that matches a call decides it (none: allowed); every matching
// `max autonomy` rule caps the level.
import { AppError } from '../shared/appError.ts';
import type { Decider } from '../shared/events.ts';
import { eventTypesOf } from '../shared/eventSchema.ts';
import { lowerLevel } from './autonomy.ts';
import { type AutonomyLevelName, AUTONOMY_LEVELS, type ConstitutionEvent, type ConstitutionRule, constitutionEventSchemas } from './governanceEvents.ts';

export type { ConstitutionRule };

/** The bounds of a constitution's text: lines, characters per line, characters in all. */
export const CONSTITUTION_LIMITS = { lines: 200, lineLength: 500, characters: 20_000 } as const;

const SKILL = /^(\*|[A-Za-z][A-Za-z0-9_]*\.\*|[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+)$/;
const COLLECTION = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
const ROLE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** A line that does not compile: 400, at the draft's line (1-based), with the line's text. */
function lineError(line: number, text: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `Constitution line ${line}: ${message}`, { path: ['draft', 'text', line], extensions: { line, text } });
}

/** Compiles a constitution's text; `isSkill` answers whether a name (or `<area>.*`) names registered skills. */
export function compileConstitution(text: string, isSkill: (pattern: string) => boolean): ConstitutionRule[] {
  const lines = text.split(/\r?\n/);
  if (text.length > CONSTITUTION_LIMITS.characters || lines.length > CONSTITUTION_LIMITS.lines) {
    throw new AppError('VALIDATION_FAILED', `A constitution has at most ${CONSTITUTION_LIMITS.lines} lines and ${CONSTITUTION_LIMITS.characters} characters`, {
      path: ['draft', 'text'],
    });
  }
  const rules: ConstitutionRule[] = [];
  lines.forEach((raw, index) => {
    const rule = compileLine(raw, index + 1, isSkill);
    if (rule) rules.push(rule);
  });
  return rules;
}

function compileLine(raw: string, line: number, isSkill: (pattern: string) => boolean): ConstitutionRule | null {
  const text = raw.trim();
  if (text === '' || text.startsWith('#')) return null;
  if (raw.length > CONSTITUTION_LIMITS.lineLength) throw lineError(line, text.slice(0, 80), `a line has at most ${CONSTITUTION_LIMITS.lineLength} characters`);
  const fail = (message: string) => lineError(line, text, message);
  // `a, b` is one list token `a,b`.
  const tokens = text.replace(/\s*,\s*/g, ',').split(/\s+/);
  const keyword = tokens[0]!.toLowerCase();
  const list = (token: string | undefined, what: string, pattern: RegExp): string[] | null => {
    if (token === undefined || token === '') throw fail(`${what} expected`);
    const names = token.split(',');
    for (const name of names) if (name !== '*' && !pattern.test(name)) throw fail(`"${name}" is not a valid ${what} name`);
    return names.includes('*') ? null : [...new Set(names)];
  };
  /** The optional clauses from `at` on: each of `allowed` at most once, in order. */
  const clauses = (at: number, allowed: readonly ('on' | 'for')[]) => {
    const found: { on?: string[] | null; for?: string[] | null } = {};
    let position = at;
    let next = 0;
    while (position < tokens.length) {
      const word = tokens[position]!.toLowerCase();
      const slot = allowed.indexOf(word as 'on' | 'for');
      if (slot < next) throw fail(`unexpected "${tokens[position]}"${allowed.length ? `: expected ${allowed.slice(next).map((w) => `"${w}"`).join(' or ')}` : ''}`);
      found[word as 'on' | 'for'] = word === 'on' ? list(tokens[position + 1], 'collection', COLLECTION) : list(tokens[position + 1], 'role', ROLE);
      next = slot + 1;
      position += 2;
    }
    return found;
  };
  if (keyword === 'allow' || keyword === 'deny') {
    const skills = tokens[1]?.split(',') ?? [];
    if (skills.length === 0 || skills[0] === '') throw fail('a skill expected');
    for (const skill of skills) {
      if (!SKILL.test(skill)) throw fail(`"${skill}" is not a skill name (a name, <area>.* or *)`);
      if (skill !== '*' && !isSkill(skill)) throw fail(`no registered skill matches "${skill}"`);
    }
    const found = clauses(2, ['on', 'for']);
    return { line, text, effect: keyword, skills: skills.includes('*') ? ['*'] : [...new Set(skills)], collections: found.on ?? null, roles: found.for ?? null };
  }
  if (keyword === 'max') {
    if (tokens[1]?.toLowerCase() !== 'autonomy') throw fail('"max autonomy <level>" expected');
    const level = tokens[2]?.toLowerCase();
    if (!AUTONOMY_LEVELS.includes(level as AutonomyLevelName)) throw fail(`an autonomy level expected (${AUTONOMY_LEVELS.join(', ')})`);
    const found = clauses(3, ['for']);
    return { line, text, effect: 'max_autonomy', level: level as AutonomyLevelName, roles: found.for ?? null };
  }
  throw fail(`a rule starts with allow, deny or "max autonomy", not "${tokens[0]}"`);
}

/** Whether a rule's skill pattern covers a skill: `*`, `<area>.*`, or the name. */
export function skillPatternMatches(pattern: string, skill: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return skill.startsWith(pattern.slice(0, -1));
  return pattern === skill;
}

export interface ConstitutionCall {
  skill: string;
  collection: string | null;
  role: string | null;
  /** The call may reach any collection (a search over all of them): a deny rule naming collections matches it, an allow rule does not. */
  anyCollection?: boolean;
}

export interface ConstitutionVerdict {
  decision: 'allow' | 'deny';
  /** The first allow or deny rule that matched, null for none (allowed). */
  rule: Extract<ConstitutionRule, { effect: 'allow' | 'deny' }> | null;
  /** The lowest level of the matching `max autonomy` rules, null for none. */
  maxAutonomy: AutonomyLevelName | null;
}

const rolesMatch = (roles: string[] | null, role: string | null) => roles === null || (role !== null && roles.includes(role));

/** What the rules say of a call: its first matching allow/deny rule, and the autonomy cap. */
export function evaluateConstitution(rules: readonly ConstitutionRule[], call: ConstitutionCall): ConstitutionVerdict {
  let rule: ConstitutionVerdict['rule'] = null;
  let maxAutonomy: AutonomyLevelName | null = null;
  for (const candidate of rules) {
    if (!rolesMatch(candidate.roles, call.role)) continue;
    if (candidate.effect === 'max_autonomy') {
      maxAutonomy = maxAutonomy === null ? candidate.level : lowerLevel(maxAutonomy, candidate.level);
      continue;
    }
    if (rule !== null) continue;
    const collectionMatches =
      candidate.collections === null ||
      (call.anyCollection === true && candidate.effect === 'deny') ||
      (call.collection !== null && candidate.collections.includes(call.collection));
    if (collectionMatches && candidate.skills.some((pattern) => skillPatternMatches(pattern, call.skill))) rule = candidate;
  }
  return { decision: rule?.effect ?? 'allow', rule, maxAutonomy };
}

export type ConstitutionCommand =
  | { type: 'saveDraft'; text: string }
  | { type: 'recordCompile'; revision: number; rules: ConstitutionRule[] }
  | { type: 'activate' };

export interface ConstitutionState {
  draft: { text: string; revision: number } | null;
  compiled: { revision: number; rules: ConstitutionRule[] } | null;
  /** The active version's number (0: none yet) and the draft revision it came from. */
  version: number;
  activatedRevision: number | null;
}

export const constitutionDecider: Decider<ConstitutionState, ConstitutionCommand, ConstitutionEvent> = {
  eventTypes: eventTypesOf(constitutionEventSchemas),
  initialState: () => ({ draft: null, compiled: null, version: 0, activatedRevision: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'agent_constitution.draft_saved':
        return { ...state, draft: { text: event.data.text, revision: event.data.revision } };
      case 'agent_constitution.compiled':
        return { ...state, compiled: { revision: event.data.revision, rules: event.data.rules } };
      case 'agent_constitution.activated':
        return { ...state, version: event.data.version, activatedRevision: event.data.revision };
    }
  },
  decide(command, state) {
    if (command.type === 'saveDraft') {
      if (state.draft?.text === command.text) return [];
      return [{ type: 'agent_constitution.draft_saved', data: { revision: (state.draft?.revision ?? 0) + 1, text: command.text } }];
    }
    const draft = state.draft;
    if (!draft) throw new AppError('CONFLICT', 'There is no draft: save one with PUT /agent/constitution/draft');
    if (command.type === 'recordCompile') {
      if (command.revision !== draft.revision) throw new AppError('CONFLICT', 'The draft changed while it compiled: compile it again');
      if (state.compiled?.revision === command.revision && JSON.stringify(state.compiled.rules) === JSON.stringify(command.rules)) return [];
      return [{ type: 'agent_constitution.compiled', data: { revision: command.revision, rules: command.rules } }];
    }
    if (state.compiled?.revision !== draft.revision) throw new AppError('CONFLICT', 'The draft is not compiled: POST /agent/constitution/compile first');
    if (state.activatedRevision === draft.revision) throw new AppError('CONFLICT', `The draft is already active as version ${state.version}`);
    return [{ type: 'agent_constitution.activated', data: { version: state.version + 1, revision: draft.revision, text: draft.text, rules: state.compiled.rules } }];
  },
};
