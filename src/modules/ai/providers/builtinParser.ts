// The copilot's built-in intent parser (docs/ai-copilot.md, "The built-in parser"): a fixed list of
// phrasings, matched whole and deterministically, each turned into one skill call. Anything else is a
// reply that lists them. It knows no site: a collection is named in the plural (`article` and
// `articles` both give `articles`), and the chat fits that to the site's collections (src/modules/ai/chat.ts).
import type { IntentProvider, IntentResolution } from '../skillTypes.ts';

/** The longest message the parser reads (characters); a longer one is answered with the phrasings. */
export const MAX_PARSED_MESSAGE = 1_000;

/** A collection as a message names it: letters, digits, `_` and `-`, starting with a letter (the schema's rule for names). */
const COLLECTION = '([A-Za-z][A-Za-z0-9_-]{0,63})';
/** An item's or a release's id (the items' id pattern: a UUID or a custom key). */
const ID = '([A-Za-z0-9_-]{1,128})';
/** A field's name. */
const FIELD = '([A-Za-z_][A-Za-z0-9_]{0,63})';
/** Free text up to the end of the message (a title, a value, a search). */
const TEXT = '(\\S.*)';

/** The documented phrasings, in the order they are tried, with the call each makes. */
export const PHRASINGS: readonly { example: string; pattern: RegExp; call(match: string[]): { skill: string; input: Record<string, unknown> } }[] = [
  { example: 'list articles', pattern: phrase(`list ${COLLECTION}`), call: ([collection]) => ({ skill: 'items.list', input: { collection: pluralCollection(collection) } }) },
  {
    example: 'show article <id> (or: read article <id>)',
    pattern: phrase(`(?:show|read) ${COLLECTION} ${ID}`),
    call: ([collection, id]) => ({ skill: 'items.read', input: { collection: pluralCollection(collection), id } }),
  },
  {
    example: 'search articles for <text>',
    pattern: phrase(`search ${COLLECTION} for ${TEXT}`),
    call: ([collection, text]) => ({ skill: 'items.search', input: { q: unquoted(text), collections: [pluralCollection(collection)] } }),
  },
  { example: 'search for <text>', pattern: phrase(`search for ${TEXT}`), call: ([text]) => ({ skill: 'items.search', input: { q: unquoted(text) } }) },
  { example: 'summarize articles', pattern: phrase(`summari[sz]e ${COLLECTION}`), call: ([collection]) => ({ skill: 'items.summarize', input: { collection: pluralCollection(collection) } }) },
  {
    example: 'create article titled <title>',
    pattern: phrase(`create (?:an? )?${COLLECTION} titled ${TEXT}`),
    call: ([collection, title]) => ({ skill: 'items.create', input: { collection: pluralCollection(collection), items: { title: unquoted(title) } } }),
  },
  {
    example: 'update article <id> set <field> to <value>',
    pattern: phrase(`update ${COLLECTION} ${ID} set ${FIELD} to ${TEXT}`),
    call: ([collection, id, field, value]) => ({ skill: 'items.update', input: { collection: pluralCollection(collection), id, changes: { [field!]: unquoted(value) } } }),
  },
  { example: 'delete article <id>', pattern: phrase(`delete ${COLLECTION} ${ID}`), call: ([collection, id]) => ({ skill: 'items.delete', input: { collection: pluralCollection(collection), id } }) },
  { example: 'publish release <id>', pattern: phrase(`publish release ${ID}`), call: ([id]) => ({ skill: 'releases.publish', input: { id } }) },
];

/** A whole-message pattern: verbs in any case, single spaces between words (the message is normalized first), a final `.`, `!` or `?` ignored. */
function phrase(source: string): RegExp {
  return new RegExp(`^${source}$`, 'i');
}

/** A collection's name from the word a message uses: as given when it ends in `s`, else with an `s` added (collections are named in the plural). */
export function pluralCollection(word: string | undefined): string {
  const name = word ?? '';
  return name.endsWith('s') || name.endsWith('S') ? name : `${name}s`;
}

/** The text without one pair of surrounding quotes. */
function unquoted(text: string | undefined): string {
  const value = (text ?? '').trim();
  const quoted = /^(["'“‘])(.*)(["'”’])$/.exec(value);
  return quoted ? quoted[2]!.trim() : value;
}

/** The answer to a message no phrasing matches: what the parser understands. */
export function phrasingsReply(reason: string): string {
  return `${reason} The built-in copilot understands: ${PHRASINGS.map((entry) => `"${entry.example}"`).join('; ')}.`;
}

/** What a message asks for: one skill call, or a reply listing the phrasings. */
export function parseIntent(message: string): IntentResolution {
  if (message.length > MAX_PARSED_MESSAGE) return { kind: 'reply', text: phrasingsReply(`That message is longer than ${MAX_PARSED_MESSAGE} characters.`) };
  const normalized = message.trim().replace(/\s+/g, ' ').replace(/[.!?]$/, '');
  for (const entry of PHRASINGS) {
    const match = entry.pattern.exec(normalized);
    if (match) return { kind: 'call', call: entry.call(match.slice(1)) };
  }
  return { kind: 'reply', text: phrasingsReply('I did not recognise that request.') };
}

export const builtinParser: IntentProvider = {
  name: 'builtin',
  resolve: async ({ message }) => parseIntent(message),
};
