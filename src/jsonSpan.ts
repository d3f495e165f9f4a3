/**
 * Where a value sits in a JSON text, found without parsing the text: the start and end (exclusive)
 * of the value at `path` (object keys from the top), or undefined when the text has no such value
 * or is not shaped as the path says. The text is taken to be valid JSON, as a store's own stored
 * text is (the store wrote it, and the audit chain proves it unchanged): what is checked is the
 * path, not the grammar. Strings are skipped with `indexOf` to their closing quote, so a large
 * value costs little more than a search for its brackets.
 *
 * Pure; its properties are tested against `JSON.parse` and `JSON.stringify` (test/unit/jsonSpan.test.ts).
 */
export interface Span {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
};

/** The index just past the string that opens at `i` (a quote). */
const skipString = (text: string, i: number): number => {
  for (let at = i + 1; ;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    // A quote preceded by an odd number of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
};

/** The index just past the value that starts at `i`. */
const skipValue = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) {
    // A number, true, false or null: up to the next delimiter.
    let at = i;
    while (at < text.length) {
      const d = text.charCodeAt(at);
      if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || isSpace(d)) break;
      at++;
    }
    return at;
  }
  let depth = 0;
  for (let at = i; at < text.length;) {
    const d = text.charCodeAt(at);
    if (d === QUOTE) at = skipString(text, at);
    else {
      if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return at + 1;
      at++;
    }
  }
  return text.length;
};

/** The span of the value of `key` in the object that opens at `i`, or undefined. */
const memberSpan = (text: string, i: number, key: string): Span | undefined => {
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  let at = skipSpace(text, i + 1);
  if (text.charCodeAt(at) === CLOSE_OBJECT) return undefined;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    const keyEnd = skipString(text, at);
    // A key with an escape in it is compared parsed; a plain one as it is.
    const raw = text.slice(at + 1, keyEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(text.slice(at, keyEnd)) as string) : raw;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) return undefined;
    const start = skipSpace(text, at + 1);
    const end = skipValue(text, start);
    if (name === key) return { start, end };
    at = skipSpace(text, end);
    if (text.charCodeAt(at) !== COMMA) return undefined;
    at = skipSpace(text, at + 1);
  }
};

export const jsonSpan = (text: string, path: readonly string[]): Span | undefined => {
  let span: Span | undefined = { start: skipSpace(text, 0), end: text.length };
  for (const key of path) {
    span = memberSpan(text, span.start, key);
    if (!span) return undefined;
  }
  return span;
};
