// The copilot's built-in intent parser (docs/ai-copilot.md, "The built-in parser"): each documented
// phrasing becomes its one skill call, whatever the case of its verbs and its spacing, with the
// collection in the plural; anything else,
// and a message too long to read, is a reply that lists the phrasings.
import { describe, expect, it } from 'vitest';
import { builtinParser, MAX_PARSED_MESSAGE, parseIntent, PHRASINGS } from '../../../src/modules/ai/providers/builtinParser.ts';
import { fitCollection } from '../../../src/modules/ai/chat.ts';

const id = '0190f5a2-7c1e-7000-8000-000000000001';
const call = (skill: string, input: Record<string, unknown>) => ({ kind: 'call', call: { skill, input } });

describe('the built-in parser', () => {
  it.each([
    ['list articles', call('items.list', { collection: 'articles' })],
    ['List   Articles.', call('items.list', { collection: 'Articles' })],
    [`show article ${id}`, call('items.read', { collection: 'articles', id })],
    [`read articles a-custom_key`, call('items.read', { collection: 'articles', id: 'a-custom_key' })],
    ['search articles for alpine lakes', call('items.search', { q: 'alpine lakes', collections: ['articles'] })],
    ['search for "bread"?', call('items.search', { q: 'bread' })],
    ['summarize articles', call('items.summarize', { collection: 'articles' })],
    ['Summarise authors', call('items.summarize', { collection: 'authors' })],
    ['list person', call('items.list', { collection: 'persons' })],
    ['list news', call('items.list', { collection: 'news' })],
    ['create article titled Hello world', call('items.create', { collection: 'articles', items: { title: 'Hello world' } })],
    ['create an article titled “Quoted title”', call('items.create', { collection: 'articles', items: { title: 'Quoted title' } })],
    [`update article ${id} set title to New title`, call('items.update', { collection: 'articles', id, changes: { title: 'New title' } })],
    [`update articles ${id} set category to 'food'`, call('items.update', { collection: 'articles', id, changes: { category: 'food' } })],
    [`delete article ${id}`, call('items.delete', { collection: 'articles', id })],
    [`publish release ${id}`, call('releases.publish', { id })],
  ])('reads "%s" as its skill call', (message, expected) => {
    expect(parseIntent(message)).toEqual(expected);
  });

  it('answers anything else with the phrasings it understands, and calls nothing', () => {
    for (const message of ['hello there', 'list', 'delete everything now please', `show article ${id} and more`, 'publish release', 'update article 1 set to x']) {
      const resolution = parseIntent(message);
      expect(resolution.kind, message).toBe('reply');
      expect(resolution.kind === 'reply' && resolution.text).toContain('"list articles"');
    }
    expect(PHRASINGS.map((entry) => entry.example)).toContain('publish release <id>');
  });

  it('does not read a message longer than its bound', async () => {
    const long = `search for ${'x'.repeat(MAX_PARSED_MESSAGE)}`;
    const resolution = await builtinParser.resolve({ message: long, skills: [] });
    expect(resolution).toEqual({ kind: 'reply', text: expect.stringContaining(`longer than ${MAX_PARSED_MESSAGE} characters`) });
    // At the bound, it is read.
    expect(parseIntent(`search for ${'x'.repeat(MAX_PARSED_MESSAGE - 11)}`)).toMatchObject({ kind: 'call' });
  });

  it('answers at once even on input built to backtrack', () => {
    const started = performance.now();
    parseIntent(`update ${'a'.repeat(60)} ${'b'.repeat(128)} set ${'c '.repeat(400)}`);
    parseIntent(`search ${'for '.repeat(240)}`);
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('fitting a named collection to the site', () => {
  const site = new Set(['articles', 'news', 'Authors', 'person']);
  it.each([
    ['articles', 'articles'],
    ['article', 'articles'],
    ['news', 'news'],
    ['persons', 'person'],
    ['authors', 'Authors'],
    ['Articles', 'articles'],
    ['unknown', 'unknown'],
  ])('fits "%s" to "%s"', (named, fitted) => {
    expect(fitCollection(site, named)).toBe(fitted);
  });
});
