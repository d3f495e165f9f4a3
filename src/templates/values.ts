import type { ErrorObject } from 'ajv/dist/2020';
import type { ValidationProblem } from '../validation';
import { charge } from './engine';
import { MAX_VALUE_DEPTH } from './limits';
import { pathTo } from './variables';

/**
 * The values a request fills a template with: copied as this service's own (JSON only, a
 * `__proto__` key an own property; defaults are filled into the copy, never into the caller's
 * object), ajv's errors about them said with the request's paths (`$.prompt_variables.language`),
 * and their lists given a text made once per render (a list written whole, `{{items}}`).
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

const describe = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : `string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return 'an object';
};

const shown = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/** ajv's errors as the API's problems: a path into the values as sent (`$.prompt_variables.language`), a plain message. */
export const valueProblems = (errors: readonly ErrorObject[], data: unknown, where: string): ValidationProblem[] => {
  const seen = new Map<string, ValidationProblem>();
  for (const e of errors) {
    let path = where;
    let value: unknown = data;
    for (const raw of e.instancePath.split('/').slice(1)) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(value)) {
        path = pathTo(path, Number(key));
        value = value[Number(key)];
      } else {
        path = pathTo(path, key);
        value = isObject(value) ? value[key] : undefined;
      }
    }
    const params = e.params as Record<string, unknown>;
    let message = e.message ?? e.keyword;
    switch (e.keyword) {
      case 'required':
        path = pathTo(path, String(params.missingProperty));
        message = 'is required';
        break;
      case 'additionalProperties':
      case 'unevaluatedProperties':
        path = pathTo(path, String(params.additionalProperty ?? params.unevaluatedProperty));
        message = e.instancePath === '' ? 'is not a variable of this version' : 'is not allowed here';
        break;
      case 'enum': {
        const allowed = (params.allowedValues as unknown[]).slice(0, 20).map(shown).join(', ');
        message = `must be one of ${allowed}${(params.allowedValues as unknown[]).length > 20 ? ', …' : ''} (got ${describe(value)})`;
        break;
      }
      case 'type':
        message = `must be ${String(params.type).replace(/,/g, ' or ')} (got ${describe(value)})`;
        break;
      case 'const':
        message = `must be ${shown(params.allowedValue)} (got ${describe(value)})`;
        break;
      default:
        break;
    }
    const key = `${path}\u0000${message}`;
    if (!seen.has(key)) seen.set(key, { path, message });
  }
  return [...seen.values()];
};

/**
 * A request's values as this service's own copy: JSON values only (finite numbers, no functions,
 * dates or cycles; nested at most MAX_VALUE_DEPTH deep), a `__proto__` key an own property like any
 * other. Validation fills defaults into the copy, never into the caller's object.
 */
export const copyValues = (value: unknown, where: string): { copy: Json } | ValidationProblem[] => {
  if (!isObject(value)) return [{ path: where, message: `must be an object of named values (got ${describe(value)})` }];
  // Values that are JSON (all of them, but for a gateway's mistake) are copied without making a path
  // per value; only when one is not is the walk made again to say where.
  const problems: ValidationProblem[] = [];
  const fast = copy(value, 1, undefined);
  if (fast !== NOT_JSON) return { copy: fast as Json };
  copy(value, 1, { path: where, problems });
  return problems;
};

const NOT_JSON = Symbol('not JSON');
interface Located {
  path: string;
  problems: ValidationProblem[];
}

/** A copy of a JSON value; NOT_JSON when it is not one (`at`, when given, collects where and why). */
const copy = (v: unknown, depth: number, at: Located | undefined): unknown => {
  const fail = (message: string) => {
    at?.problems.push({ path: at.path, message });
    return NOT_JSON;
  };
  if (depth > MAX_VALUE_DEPTH) return fail(`is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : fail('must be a finite number');
  let failed = false;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      out[i] = copy(v[i], depth + 1, at && { path: pathTo(at.path, i), problems: at.problems });
      if (out[i] === NOT_JSON) failed = true;
    }
    return failed ? NOT_JSON : out;
  }
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto === Object.prototype || proto === null) {
      const out: Json = {};
      for (const key of Object.keys(v)) {
        const child = copy((v as Json)[key], depth + 1, at && { path: pathTo(at.path, key), problems: at.problems });
        if (child === NOT_JSON) failed = true;
        if (key === '__proto__') Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
        else out[key] = child;
      }
      return failed ? NOT_JSON : out;
    }
  }
  return fail(`is not a JSON value (${typeof v === 'object' ? 'an object of a class' : typeof v})`);
};

/** A list written whole (`{{items}}`) is its items joined by commas, as JavaScript writes it; made once per list and counted. */
const listTexts = new WeakMap<object, string>();
function listText(this: unknown[]): string {
  let text = listTexts.get(this);
  if (text === undefined) {
    text = Array.prototype.join.call(this, ',');
    charge(text.length);
    listTexts.set(this, text);
  }
  return text;
}

/** Gives every list in the values its text once (see listText); the values are this render's own copy. */
export const markLists = (value: unknown): void => {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (!Object.hasOwn(value, Symbol.toPrimitive)) Object.defineProperty(value, Symbol.toPrimitive, { value: listText });
    for (const item of value) markLists(item);
  } else for (const key in value) markLists((value as Json)[key]);
};
