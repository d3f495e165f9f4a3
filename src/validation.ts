import * as t from 'io-ts';

/** One problem with a request body or a stored event, located by a JSON path such as `$.messages[0].role`. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** At most this many problems are listed (validation also stops early on long lists); `truncated` says when there may be more. */
export const MAX_LISTED_PROBLEMS = 100;

/** The metadata of an answer that lists problems: `{errors, truncated}`. */
export const problemsMetadata = (problems: ValidationProblem[]): { errors: ValidationProblem[]; truncated: boolean } => ({
  errors: problems.slice(0, MAX_LISTED_PROBLEMS),
  truncated: problems.length >= MAX_LISTED_PROBLEMS,
});

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// A union or intersection validates each member under a context key that is the member's index:
// not a step into the value.
const MEMBER_INDEXED = new Set(['UnionType', 'IntersectionType']);
// These validate through the codec they wrap without adding a context entry, so a key under them
// is a step into the wrapped codec (`stop[1]` under a refined array): look through to that codec.
const WRAPPERS = new Set(['RefinementType', 'ReadonlyType', 'ExactType', 'RecursiveType']);

const tagOf = (type: t.Decoder<unknown, unknown>): string => {
  let current = type as unknown as { _tag?: string; type?: t.Decoder<unknown, unknown> };
  while (current._tag !== undefined && WRAPPERS.has(current._tag) && current.type) {
    current = current.type as unknown as typeof current;
  }
  return current._tag ?? '';
};

const describe = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : `string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `number ${value}`;
  return typeof value === 'object' ? 'an object' : typeof value;
};

const stepInto = (path: string, key: string, parent: t.Decoder<unknown, unknown>): string => {
  const tag = tagOf(parent);
  if (tag === 'ArrayType' || tag === 'ReadonlyArrayType' || tag === 'TupleType') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
};

/** Turns io-ts errors into one line per problem, deduplicated, without echoing large values. */
export const formatErrors = (errors: t.Errors): ValidationProblem[] => {
  const seen = new Map<string, ValidationProblem>();
  for (const error of errors) {
    const ctx = error.context;
    let path = '$';
    let expected = ctx[0]?.type.name ?? 'a value';
    let actual: unknown = ctx[0]?.actual;
    for (let i = 1; i < ctx.length; i++) {
      const parent = ctx[i - 1]!.type;
      if (MEMBER_INDEXED.has(tagOf(parent))) continue;
      path = stepInto(path, ctx[i]!.key, parent);
      expected = ctx[i]!.type.name;
      actual = ctx[i]!.actual;
    }
    const message = error.message ?? `expected ${expected}, got ${describe(actual)}`;
    const key = `${path}\u0000${message}`;
    if (!seen.has(key)) seen.set(key, { path, message });
  }
  return [...seen.values()];
};
