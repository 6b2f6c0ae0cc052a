// The constitution's line language (domain/agents/constitution.ts): what each line compiles to, the
// line number of the first bad line, the bounds, and how compiled rules judge a call.
import { describe, expect, it } from 'vitest';
import { compileConstitution, constitutionDecider, evaluateConstitution, type ConstitutionState } from '../../../domain/agents/constitution.ts';
import { AppError } from '../../../domain/shared/appError.ts';

const SKILLS = ['items.list', 'items.read', 'items.create', 'items.delete', 'releases.publish'];
const isSkill = (pattern: string) => (pattern.endsWith('.*') ? SKILLS.some((skill) => skill.startsWith(pattern.slice(0, -1))) : SKILLS.includes(pattern));
const compile = (text: string) => compileConstitution(text, isSkill);

function compileError(text: string): AppError {
  try {
    compile(text);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('compiled');
}

describe('the constitution language', () => {
  it('compiles allow, deny and max autonomy lines, skipping blanks and comments', () => {
    const rules = compile(['# house rules', '', 'deny items.delete on *', 'ALLOW items.* on articles,  pages for translator , writer', '  max autonomy stage for translator', 'deny *'].join('\n'));
    expect(rules).toEqual([
      { line: 3, text: 'deny items.delete on *', effect: 'deny', skills: ['items.delete'], collections: null, roles: null },
      { line: 4, text: 'ALLOW items.* on articles,  pages for translator , writer', effect: 'allow', skills: ['items.*'], collections: ['articles', 'pages'], roles: ['translator', 'writer'] },
      { line: 5, text: 'max autonomy stage for translator', effect: 'max_autonomy', level: 'stage', roles: ['translator'] },
      { line: 6, text: 'deny *', effect: 'deny', skills: ['*'], collections: null, roles: null },
    ]);
    expect(compile('')).toEqual([]);
  });

  it('refuses a bad line with its number (path and extensions), naming what is wrong', () => {
    const cases: [string, number, RegExp][] = [
      ['allow items.list\nexplode everything', 2, /allow, deny or "max autonomy"/],
      ['# ok\n\ndeny items.nuke', 3, /no registered skill matches "items.nuke"/],
      ['deny ghosts.*', 1, /no registered skill/],
      ['deny items.list on', 1, /collection expected/],
      ['deny items.list for Bad-Role', 1, /not a valid role name/],
      ['deny items.list for writer on articles', 1, /unexpected "on"/],
      ['deny items.list on a on b', 1, /unexpected "on"/],
      ['max autonomy root', 1, /autonomy level expected/],
      ['max speed act', 1, /"max autonomy <level>"/],
      ['max autonomy act on articles', 1, /unexpected "on"/],
      ['deny', 1, /a skill expected/],
      ['deny items.list;drop', 1, /not a skill name/],
    ];
    for (const [text, line, message] of cases) {
      const error = compileError(text);
      expect(error.code, text).toBe('VALIDATION_FAILED');
      expect(error.status).toBe(400);
      expect(error.path, text).toEqual(['draft', 'text', line]);
      expect(error.extensions.line).toBe(line);
      expect(error.message, text).toMatch(message);
    }
  });

  it('bounds the text: 200 lines, 500 characters a line', () => {
    expect(compile(Array.from({ length: 200 }, () => 'deny items.delete').join('\n'))).toHaveLength(200);
    expect(compileError(Array.from({ length: 201 }, () => '#').join('\n')).path).toEqual(['draft', 'text']);
    expect(compileError(`deny items.delete on ${'a,'.repeat(300)}b`).path).toEqual(['draft', 'text', 1]);
  });

  it('judges a call by its first matching allow or deny rule, and caps autonomy with every matching max', () => {
    const rules = compile(['allow items.read on secrets for auditor', 'deny * on secrets', 'deny items.delete for translator', 'max autonomy act', 'max autonomy stage for translator'].join('\n'));
    const judge = (skill: string, collection: string | null, role: string | null) => evaluateConstitution(rules, { skill, collection, role });
    expect(judge('items.read', 'secrets', 'auditor')).toMatchObject({ decision: 'allow', rule: { line: 1 }, maxAutonomy: 'act' });
    expect(judge('items.read', 'secrets', 'translator')).toMatchObject({ decision: 'deny', rule: { line: 2 }, maxAutonomy: 'stage' });
    expect(judge('items.read', 'secrets', null)).toMatchObject({ decision: 'deny', rule: { line: 2 } });
    expect(judge('items.delete', 'articles', 'translator')).toMatchObject({ decision: 'deny', rule: { line: 3 } });
    expect(judge('items.delete', 'articles', 'writer')).toEqual({ decision: 'allow', rule: null, maxAutonomy: 'act' });
    // A rule naming collections does not match a call that names none.
    expect(judge('releases.publish', null, 'auditor')).toMatchObject({ decision: 'allow', rule: null });
  });
});

describe('the constitution stream', () => {
  const decide = (state: ConstitutionState, command: Parameters<typeof constitutionDecider.decide>[0]) => constitutionDecider.decide(command, state);
  const fold = (...events: ReturnType<typeof constitutionDecider.decide>) => events.reduce(constitutionDecider.evolve, constitutionDecider.initialState());

  it('activates only a compiled draft, once per revision, numbering versions', () => {
    const empty = constitutionDecider.initialState();
    expect(() => decide(empty, { type: 'activate' })).toThrow(/no draft/);
    const saved = decide(empty, { type: 'saveDraft', text: 'deny *' });
    expect(saved).toEqual([{ type: 'agent_constitution.draft_saved', data: { revision: 1, text: 'deny *' } }]);
    expect(() => decide(fold(...saved), { type: 'activate' })).toThrow(/not compiled/);
    const rules = compile('deny *');
    const compiled = decide(fold(...saved), { type: 'recordCompile', revision: 1, rules });
    const activated = decide(fold(...saved, ...compiled), { type: 'activate' });
    expect(activated).toEqual([{ type: 'agent_constitution.activated', data: { version: 1, revision: 1, text: 'deny *', rules } }]);
    expect(() => decide(fold(...saved, ...compiled, ...activated), { type: 'activate' })).toThrow(/already active as version 1/);
    expect(decide(fold(...saved, ...compiled), { type: 'recordCompile', revision: 1, rules })).toEqual([]);
    expect(() => decide(fold(...saved), { type: 'recordCompile', revision: 2, rules })).toThrow(/changed while it compiled/);
    // The same text saved again is no new revision.
    expect(decide(fold(...saved), { type: 'saveDraft', text: 'deny *' })).toEqual([]);
  });
});
