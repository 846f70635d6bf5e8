// What JSON allows but no call of ours should take, found in a body that already parsed:
//
// - a key named twice in one object. JSON.parse keeps the last value, another parser (a proxy, a
//   web application firewall, a log) may keep the first, so what was checked upstream and what
//   runs here could differ;
// - a NUL character (\u0000) in any string, key or value. PostgreSQL's text cannot hold it: the
//   query fails and the call would answer 500 instead of saying what is wrong.
//
// The text is known to be valid JSON, so one pass over it tracks objects, arrays and strings
// without checking the grammar again.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

export const NUL_IN_BODY_MESSAGE =
  'The request body holds a NUL character (\\u0000), which no field takes.';

/** In fixed words: the key is the caller's text, and no error repeats what the request sent. */
export const REPEATED_KEY_MESSAGE = 'The request body names a field more than once.';

/** The index of the quote that closes the string opening at `start`. */
function endOfString(text: string, start: number): number {
  let index = start + 1;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) return index;
    index += code === BACKSLASH ? 2 : 1;
  }
}

/**
 * Why a valid JSON text must be refused (a key named twice in one object, a NUL in a string), in
 * words for the caller; undefined when it may pass.
 */
export function findJsonBodyHazard(text: string): string | undefined {
  // One entry per open object (the keys seen in it) or array (null).
  const open: Array<Set<string> | null> = [];
  let expectsKey = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = endOfString(text, index);
      const raw = text.slice(index + 1, end);
      // Escapes (\u0000, \" ...) are decoded, so "a" and "\u0061" are one key.
      const value = raw.includes('\\') ? (JSON.parse(text.slice(index, end + 1)) as string) : raw;
      if (value.includes('\0')) return NUL_IN_BODY_MESSAGE;
      const keys = open.at(-1);
      if (expectsKey && keys) {
        if (keys.has(value)) return REPEATED_KEY_MESSAGE;
        keys.add(value);
        expectsKey = false;
      }
      index = end;
    } else if (code === OPEN_OBJECT) {
      open.push(new Set());
      expectsKey = true;
    } else if (code === OPEN_ARRAY) {
      open.push(null);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
      expectsKey = false;
    } else if (code === COMMA) {
      // After a comma, an object goes on with a key, an array with a value.
      expectsKey = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}
