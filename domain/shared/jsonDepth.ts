// How deeply JSON text nests, read before it is parsed: every walk of parsed JSON (the storable-text
// check, schemas, the query compiler) may then recurse without a bound of its own. JSON.parse itself
// takes any depth, so an 800 KB `[[[…]]]` would reach the first recursive walk and overflow its stack.

/** The deepest nesting any JSON body, filter or frame may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text` opens more than `max` arrays or objects inside each other. One linear pass over
 * the characters; brackets inside strings (escapes included) do not count. Says nothing about
 * whether the text is valid JSON: the parser decides that.
 */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
