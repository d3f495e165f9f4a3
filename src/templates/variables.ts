import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import type { ValidationProblem } from '../validation';
import { MAX_PATTERN_CHARS, MAX_SCHEMA_CHARS, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, MAX_UNIQUE_ITEMS } from './limits';

/**
 * A templated version's `variables`: a JSON Schema (draft 2020-12) of the values a request fills
 * its template with, checked by ajv (strict, every error listed, defaults applied, own properties
 * only, so a variable called `constructor` is just a variable). The schema is user input, so
 * before ajv sees it, it is bounded (./limits.ts: size, depth, subschemas with every `$ref`
 * expanded, no recursive `$ref`, `uniqueItems` only with a small `maxItems`), and its patterns run
 * on RE2 (`re2js`, pure JavaScript: linear in the text, whatever the pattern), never on the
 * backtracking engine, as ajv's security notes advise for untrusted schemas.
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** An ECMAScript pattern as RE2 spells it: `\uXXXX` and `\u{X}` become `\x{X}`; the rest is common to both. */
const toRe2 = (pattern: string): string =>
  pattern.replace(
    /(\\\\)|\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g,
    (all, escaped: string | undefined, braced?: string, four?: string) => (escaped ? all : `\\x{${braced ?? four}}`),
  );

/** The reason a pattern is refused, or null: it must be an ECMAScript pattern that RE2 runs. */
export const patternProblem = (pattern: string): string | null => {
  if (pattern.length > MAX_PATTERN_CHARS) return `is longer than ${MAX_PATTERN_CHARS} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
  try {
    RE2JS.compile(toRe2(pattern));
  } catch (error) {
    return (
      `cannot run in linear time (${(error as Error).message.replace(/^error parsing regexp: /, '')}): ` +
      'patterns run on RE2, without lookaround or backreferences'
    );
  }
  return null;
};

const re2Engine = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(toRe2(pattern));
    // ajv keys its compiled patterns by this text: one per pattern.
    return { test: (text: string) => re.test(text), toString: () => `re2:${pattern}` };
  },
  { code: 're2js' },
);

const ajv = new Ajv2020({
  strict: true,
  allowUnionTypes: true,
  allErrors: true,
  useDefaults: true,
  ownProperties: true,
  // A schema's $id would otherwise be kept by the instance, and a second version with the same one refused.
  addUsedSchema: false,
  code: { regExp: re2Engine },
});
addFormats(ajv, { mode: 'fast' });

/** Keywords whose value is one subschema, a list of them, or a map of them (draft 2020-12's applicators). */
const ONE = [
  'additionalProperties',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Identifiers and dynamic references: a version's schema is one document, its references local JSON pointers. */
const REFUSED = ['$id', '$anchor', '$dynamicAnchor', '$dynamicRef', '$recursiveRef', '$recursiveAnchor', '$vocabulary'];

export const pathTo = (base: string, key: string | number) =>
  typeof key === 'number'
    ? `${base}[${key}]`
    : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
      ? `${base}.${key}`
      : `${base}[${JSON.stringify(key)}]`;

const depthOf = (value: unknown): number => {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) max = d;
    if (max > MAX_SCHEMA_DEPTH) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
};

const pointerTarget = (root: unknown, ref: string): unknown => {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(target)) target = target[Number(key)];
    else if (isObject(target) && Object.hasOwn(target, key)) target = target[key];
    else return undefined;
  }
  return target;
};

/** The subschemas of a schema object, with where each is. */
const subschemas = (schema: Json, path: string): Array<[unknown, string]> => {
  const found: Array<[unknown, string]> = [];
  for (const key of ONE) if (Object.hasOwn(schema, key)) found.push([schema[key], pathTo(path, key)]);
  for (const key of LIST) {
    const list = schema[key];
    if (Object.hasOwn(schema, key) && Array.isArray(list)) list.forEach((s, i) => found.push([s, pathTo(pathTo(path, key), i)]));
  }
  for (const key of MAP) {
    const map = schema[key];
    if (Object.hasOwn(schema, key) && isObject(map))
      for (const [name, s] of Object.entries(map)) found.push([s, pathTo(pathTo(path, key), name)]);
  }
  if (Object.hasOwn(schema, 'dependencies') && isObject(schema.dependencies)) {
    for (const [name, s] of Object.entries(schema.dependencies))
      if (isObject(s)) found.push([s, pathTo(pathTo(path, 'dependencies'), name)]);
  }
  return found;
};

/** What is wrong with a schema beyond what the meta-schema checks: the bounds, and what ajv must not be given. */
const boundProblems = (root: Json, path: string): ValidationProblem[] => {
  const problems: ValidationProblem[] = [];
  const text = JSON.stringify(root);
  if (text.length > MAX_SCHEMA_CHARS) return [{ path, message: `is larger than ${MAX_SCHEMA_CHARS} characters of JSON` }];
  if (depthOf(root) > MAX_SCHEMA_DEPTH) return [{ path, message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels` }];
  if (root.type !== 'object') {
    problems.push({ path: pathTo(path, 'type'), message: 'must be "object": a version takes its variables as an object of named values' });
  }
  if (Object.hasOwn(root, '$schema') && root.$schema !== SCHEMA_DIALECT) {
    problems.push({
      path: pathTo(path, '$schema'),
      message: `must be ${JSON.stringify(SCHEMA_DIALECT)} (JSON Schema draft 2020-12), or left out`,
    });
  }

  // Every subschema once, where it is written.
  const visit = (schema: unknown, at: string, isRoot: boolean) => {
    if (typeof schema === 'boolean' || !isObject(schema)) return; // the meta-schema says what else is wrong
    for (const key of REFUSED) {
      if (Object.hasOwn(schema, key))
        problems.push({
          path: pathTo(at, key),
          message: `is not supported: a version's schema is one document, referenced by local JSON pointers ("#/$defs/…")`,
        });
    }
    if (!isRoot && Object.hasOwn(schema, '$schema')) problems.push({ path: pathTo(at, '$schema'), message: 'may only be at the top' });
    if (Object.hasOwn(schema, '$ref')) {
      const ref = schema.$ref;
      if (typeof ref !== 'string' || pointerTarget(root, ref) === undefined) {
        problems.push({ path: pathTo(at, '$ref'), message: 'must name a part of this schema by a JSON pointer ("#/$defs/name")' });
      }
    }
    if (typeof schema.pattern === 'string') {
      const wrong = patternProblem(schema.pattern);
      if (wrong) problems.push({ path: pathTo(at, 'pattern'), message: wrong });
    }
    if (isObject(schema.patternProperties)) {
      for (const key of Object.keys(schema.patternProperties)) {
        const wrong = patternProblem(key);
        if (wrong) problems.push({ path: pathTo(pathTo(at, 'patternProperties'), key), message: `(the pattern) ${wrong}` });
      }
    }
    if (schema.uniqueItems === true && !(typeof schema.maxItems === 'number' && schema.maxItems <= MAX_UNIQUE_ITEMS)) {
      problems.push({
        path: pathTo(at, 'uniqueItems'),
        message: `needs "maxItems" of at most ${MAX_UNIQUE_ITEMS} beside it (items are compared pairwise)`,
      });
    }
    for (const [child, where] of subschemas(schema, at)) visit(child, where, false);
  };
  visit(root, path, true);
  if (problems.length > 0) return problems;

  // Subschemas with each $ref counted as a copy of what it names; a reference back into itself is refused.
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  const size = (schema: unknown): number => {
    if (!isObject(schema)) return 1;
    const known = sizes.get(schema);
    if (known !== undefined) return known;
    if (open.has(schema)) throw new RecursiveRef();
    open.add(schema);
    let total = 1;
    if (typeof schema.$ref === 'string') total += size(pointerTarget(root, schema.$ref));
    for (const [child] of subschemas(schema, '')) {
      total += size(child);
      if (total > MAX_SCHEMA_NODES) break;
    }
    open.delete(schema);
    sizes.set(schema, total);
    return total;
  };
  try {
    if (size(root) > MAX_SCHEMA_NODES) {
      problems.push({ path, message: `has more than ${MAX_SCHEMA_NODES} subschemas, counting each $ref as a copy of what it names` });
    }
  } catch (error) {
    if (!(error instanceof RecursiveRef)) throw error;
    problems.push({ path, message: 'refers to itself through $ref: recursive schemas are not supported' });
  }
  return problems;
};
class RecursiveRef extends Error {}

const ajvPath = (base: string, instancePath: string) =>
  instancePath === ''
    ? base
    : `${base}${instancePath
        .split('/')
        .slice(1)
        .map((s) => (/^\d+$/.test(s) ? `[${s}]` : pathTo('', s.replace(/~1/g, '/').replace(/~0/g, '~'))))
        .join('')}`;

/** A variables schema checked and compiled, or the problems with it (paths under `path`, such as `$.variables`). */
export const compileVariables = (
  schema: unknown,
  path: string,
): { validate: ValidateFunction; declared: string[] } | ValidationProblem[] => {
  if (!isObject(schema)) return [{ path, message: 'must be a JSON Schema object ({"type": "object", "properties": {…}}), or null' }];
  const bounds = boundProblems(schema, path);
  if (bounds.length > 0) return bounds;
  if (!ajv.validateSchema(schema)) {
    // The meta-schema answers one mistake several ways (a bad type: not an enum value, not an array, no anyOf branch): its first, per place.
    const first = new Map<string, ValidationProblem>();
    for (const e of ajv.errors ?? []) {
      const at = ajvPath(path, e.instancePath);
      if (!first.has(at)) first.set(at, { path: at, message: `is not valid JSON Schema: ${e.message ?? e.keyword}` });
    }
    return [...first.values()];
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return [{ path, message: `is not a schema this service can use: ${(error as Error).message}` }];
  } finally {
    ajv.removeSchema(schema);
  }
  const properties = isObject(schema.properties) ? Object.keys(schema.properties) : [];
  return { validate, declared: properties };
};
