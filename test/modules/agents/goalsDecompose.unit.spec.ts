// Decomposing a goal's instructions (docs/agent-goals.md "Decompose"): one step per line or sentence,
// each resolved to a skill call by the copilot's provider port; a line no skill fits is 400 naming it;
// no line, or more than 20, is 400 too. Given a provider that knows two phrasings.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/shared/appError.ts';
import { decomposeWith, instructionLines } from '../../../src/modules/agents/goals.ts';
import type { IntentProvider, SkillDescriptor } from '../../../src/modules/ai/skillTypes.ts';

const skills: SkillDescriptor[] = [
  { name: 'items.list', description: 'List', inputSchema: {}, dangerous: false, mutates: false, capability: null },
  { name: 'items.create', description: 'Create', inputSchema: {}, dangerous: false, mutates: true, capability: null },
];
const seen: { message: string; skills: readonly SkillDescriptor[] }[] = [];
const provider: IntentProvider = {
  name: 'builtin',
  resolve(request) {
    seen.push({ message: request.message, skills: request.skills });
    const list = /^list (\w+)$/i.exec(request.message);
    if (list) return Promise.resolve({ kind: 'call', call: { skill: 'items.list', input: { collection: list[1]! } } });
    const create = /^create (\w+?)s? titled (.+)$/i.exec(request.message);
    if (create) return Promise.resolve({ kind: 'call', call: { skill: 'items.create', input: { collection: `${create[1]}s`, items: { title: create[2] } } } });
    return Promise.resolve({ kind: 'reply', text: 'I cannot do that' });
  },
};

async function refusal(instructions: string): Promise<AppError> {
  const error = await decomposeWith(provider, skills, instructions).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('decomposing instructions', () => {
  it('makes one step per line or sentence, trimmed, without its final stop', () => {
    expect(instructionLines('list articles\n\n  create article titled Hello.  Then list authors; list tags\r\n')).toEqual([
      'list articles',
      'create article titled Hello',
      'Then list authors',
      'list tags',
    ]);
  });

  it('resolves each line to a skill call through the provider, with the skills the principal may call', async () => {
    seen.length = 0;
    expect(await decomposeWith(provider, skills, 'list articles\ncreate article titled Spring news.')).toEqual([
      { skill: 'items.list', input: { collection: 'articles' } },
      { skill: 'items.create', input: { collection: 'articles', items: { title: 'Spring news' } } },
    ]);
    expect(seen.map((call) => call.message)).toEqual(['list articles', 'create article titled Spring news']);
    expect(seen[0]!.skills).toBe(skills);
  });

  it('refuses a line no skill fits with 400 naming it, and empty or over-long instructions', async () => {
    const unknown = await refusal('list articles\nmake me a sandwich\nlist authors');
    expect(unknown).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, path: ['body', 'instructions'], extensions: { line: 2, text: 'make me a sandwich' } });
    expect(unknown.message).toContain('make me a sandwich');
    expect(await refusal(' \n \n')).toMatchObject({ code: 'VALIDATION_FAILED', path: ['body', 'instructions'] });
    const long = await refusal(Array.from({ length: 21 }, () => 'list articles').join('\n'));
    expect(long.message).toContain('at most 20');
  });
});
