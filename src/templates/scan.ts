import { MAX_BLOCK_DEPTH, MAX_SUBEXPRESSION_DEPTH, MAX_TAGS } from './limits';

/**
 * A pass over a template's text before Handlebars parses it, linear in the text: it counts the
 * `{{…}}` tags, how deep blocks nest and how deep subexpressions nest in a tag, and refuses a
 * template past a bound (./limits.ts). Handlebars' own parser and compiler recurse and take
 * seconds on thousands of nested blocks, or on tens of thousands of tags; this refuses such a
 * template in microseconds. It reads the text as Handlebars' lexer does (comments, raw blocks,
 * escaped `\{{`, strings and `[literal]` segments inside a tag) and leaves every other mistake to
 * the parser, which names it.
 */
export interface ScanProblem {
  message: string;
  line: number;
  column: number;
}

export interface Scanned {
  /** Tags counted, with those of the version's templates scanned before this one. */
  tags: number;
}

const where = (text: string, at: number) => {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: at - start };
};
const problem = (text: string, at: number, message: string): ScanProblem => ({ message, ...where(text, at) });
const COMMENT_END = /--~?\}\}/g;

/** The end of the quoted string that starts at `at` (Handlebars strings escape their quote with a backslash), or -1. */
const stringEnd = (text: string, at: number): number => {
  const quote = text[at]!;
  for (let k = at + 1; k < text.length; k++) {
    if (text[k] === '\\' && text[k + 1] === quote) k++;
    else if (text[k] === quote) return k;
  }
  return -1;
};

export const scanTemplate = (text: string, tagsBefore = 0): Scanned | ScanProblem => {
  let tags = tagsBefore;
  let depth = 0;
  let i = 0;
  for (;;) {
    const open = text.indexOf('{{', i);
    if (open < 0) return { tags };
    // `\{{` is text (but `\\{{` is a backslash, then a tag).
    if (open > 0 && text[open - 1] === '\\' && !(open > 1 && text[open - 2] === '\\')) {
      i = open + 2;
      continue;
    }
    if (++tags > MAX_TAGS) {
      return problem(text, open, `has more than ${MAX_TAGS} {{…}} tags (the version's templates together); split it or simplify it`);
    }
    // A raw block: its content is text up to its closing tag.
    if (text.startsWith('{{{{', open)) {
      const close = text.indexOf('{{{{/', open + 4);
      if (close < 0) return { tags };
      const end = text.indexOf('}}}}', close);
      if (end < 0) return { tags };
      i = end + 4;
      continue;
    }
    let j = open + 2;
    if (text[j] === '~') j++;
    if (text[j] === '!') {
      if (text.startsWith('!--', j)) {
        COMMENT_END.lastIndex = j + 3;
        const end = COMMENT_END.exec(text);
        if (!end) return { tags };
        i = end.index + end[0].length;
      } else {
        const end = text.indexOf('}}', j);
        if (end < 0) return { tags };
        i = end + 2;
      }
      continue;
    }
    if (text[j] === '{' || text[j] === '&') j++;
    while (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r') j++;
    const sigil = text[j];
    if (sigil === '#') depth++;
    else if (sigil === '/') depth--;
    else if (sigil === '^') {
      // `{{^}}` is an else; `{{^name}}` opens an inverted section.
      let k = j + 1;
      while (text[k] === ' ' || text[k] === '\t' || text[k] === '~') k++;
      if (text[k] !== '}') depth++;
    }
    if (depth > MAX_BLOCK_DEPTH) return problem(text, open, `nests blocks more than ${MAX_BLOCK_DEPTH} deep`);
    // The rest of the tag, to its `}}`: strings and [segments] may hold braces and parentheses.
    let parens = 0;
    let end = -1;
    for (let k = j; k < text.length; k++) {
      const ch = text[k];
      if (ch === '"' || ch === "'") {
        k = stringEnd(text, k);
        if (k < 0) return { tags };
      } else if (ch === '[') {
        k = text.indexOf(']', k + 1);
        if (k < 0) return { tags };
      } else if (ch === '(') {
        if (++parens > MAX_SUBEXPRESSION_DEPTH) return problem(text, k, `nests subexpressions more than ${MAX_SUBEXPRESSION_DEPTH} deep`);
      } else if (ch === ')') parens--;
      else if (ch === '}' && text[k + 1] === '}') {
        end = k + 2;
        break;
      }
    }
    if (end < 0) return { tags };
    i = end;
  }
};

export const isScanProblem = (x: Scanned | ScanProblem): x is ScanProblem => 'message' in x;
