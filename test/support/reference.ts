import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { FormatName } from '#src/formats';

/**
 * OpenRouter's published contract, cut to the /presets paths and what they use: the reference
 * this service is tested against. The copy in reference/ is the one the tests read (a clone has
 * no shared/ beside it); reference.test.ts checks it against shared/reference/ when that is there.
 */
export const REFERENCE_FILE = join(__dirname, '..', '..', 'reference', 'openrouter-presets.openapi.json');
export const SHARED_REFERENCE_FILE = join(__dirname, '..', '..', '..', 'shared', 'reference', 'openrouter-presets.openapi.json');
export const sharedReferenceExists = () => existsSync(SHARED_REFERENCE_FILE);

type Schema = { [keyword: string]: unknown };
export interface Reference {
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
}

let cached: Reference | undefined;
export const reference = (): Reference => (cached ??= JSON.parse(readFileSync(REFERENCE_FILE, 'utf8')) as Reference);

/** The reference's request schema of each format. */
export const REQUEST_SCHEMA: Record<FormatName, string> = {
  chat_completions: 'ChatRequest',
  messages: 'MessagesRequest',
  responses: 'ResponsesRequest',
};

/** The top-level fields of a format's reference request schema. */
export const referenceFields = (format: FormatName): string[] =>
  Object.keys((reference().components.schemas[REQUEST_SCHEMA[format]]!.properties ?? {}) as object);

/** Ajv (draft 2020-12) with the reference loaded; its formats are known and, being type notes (double), not checked. */
let ajvInstance: Ajv2020 | undefined;
export const referenceAjv = (): Ajv2020 => {
  if (!ajvInstance) {
    ajvInstance = new Ajv2020({
      strict: false,
      allErrors: true,
      formats: { double: true, 'anthropic-claude-v1': true, wav: true, mp3: true },
    });
    ajvInstance.addSchema({ $id: 'openrouter', components: reference().components });
  }
  return ajvInstance;
};

const validators = new Map<string, ValidateFunction>();
/** A validator of one of the reference's component schemas. */
export const referenceValidator = (schemaName: string): ValidateFunction => {
  let validate = validators.get(schemaName);
  if (!validate) {
    validate = referenceAjv().compile({ $ref: `openrouter#/components/schemas/${schemaName}` });
    validators.set(schemaName, validate);
  }
  return validate;
};

export const validRequest = (format: FormatName, body: unknown): boolean => referenceValidator(REQUEST_SCHEMA[format])(body);

const resolve = (s: Schema): Schema => {
  let current = s;
  while (typeof current.$ref === 'string') current = reference().components.schemas[(current.$ref as string).split('/').pop()!]!;
  return current;
};
const SHALLOW = ['type', 'enum', 'const', 'minItems', 'maxItems', 'minLength', 'maxLength', 'minimum', 'maximum', 'pattern'];
/**
 * What the reference says about a field's value at its own level only: its type, nullability,
 * enum or const and its own limits, through $ref, anyOf, oneOf (read as anyOf, since branches
 * that differ only inside become alike) and allOf; nothing inside objects and lists.
 */
export const shallowSchema = (s: Schema): Schema => {
  const r = resolve(s);
  const out: Schema = Object.fromEntries(SHALLOW.filter((k) => k in r).map((k) => [k, r[k]]));
  if (Array.isArray(r.anyOf) || Array.isArray(r.oneOf)) out.anyOf = [...((r.anyOf ?? r.oneOf) as Schema[])].map(shallowSchema);
  if (Array.isArray(r.allOf)) out.allOf = (r.allOf as Schema[]).map(shallowSchema);
  return out;
};

export const LIMIT_KEYWORDS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
  'const',
  'maxProperties',
  'minProperties',
  'multipleOf',
  'uniqueItems',
];

/** A limit the reference states, where it sits: `$.tools[]{type=openrouter:advisor}.parameters.name maxLength`. */
export interface StatedLimit {
  at: string;
  keyword: string;
  value: unknown;
  schema: Schema;
}

const tagOf = (branch: Schema): string | undefined => {
  const r = resolve(branch);
  const props: Record<string, Schema> = Object.assign(
    {},
    ...[r, ...((r.allOf ?? []) as Schema[]).map(resolve)].map((s) => (s.properties ?? {}) as object),
  );
  for (const key of ['type', 'id']) {
    const p = props[key] ? resolve(props[key]!) : undefined;
    const values = p && ('const' in p ? [p.const] : Array.isArray(p.enum) ? p.enum : []);
    if (values && values.length === 1) return `{${key}=${String(values[0])}}`;
  }
  return undefined;
};

/**
 * Every limit keyword reachable from one of the reference's schemas, with the path to it: `[]` an
 * item, `.*` any property's value, `{type=…}` the variant of a union that the discriminator names.
 */
export const statedLimits = (schemaName: string): StatedLimit[] => {
  const found: StatedLimit[] = [];
  const walk = (s: Schema, at: string, stack: string[]) => {
    if (typeof s.$ref === 'string') {
      const name = s.$ref.split('/').pop()!;
      if (stack.includes(name)) return;
      walk(reference().components.schemas[name]!, at, [...stack, name]);
      return;
    }
    for (const keyword of LIMIT_KEYWORDS) if (keyword in s) found.push({ at, keyword, value: s[keyword], schema: s });
    for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
      for (const branch of (s[combinator] ?? []) as Schema[])
        walk(branch, `${at}${combinator === 'allOf' ? '' : (tagOf(branch) ?? '')}`, stack);
    }
    for (const [name, p] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) walk(p, `${at}.${name}`, stack);
    if (s.items && typeof s.items === 'object') walk(s.items as Schema, `${at}[]`, stack);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties as Schema, `${at}.*`, stack);
  };
  walk({ $ref: `#/components/schemas/${schemaName}` }, '$', []);
  const unique = new Map(found.map((l) => [`${l.at} ${l.keyword}`, l]));
  return [...unique.values()];
};

/** The smallest value a schema accepts, near enough: required properties, first variants, minimums. */
export const sampleOf = (s: Schema): unknown => {
  const r = resolve(s);
  if ('const' in r) return r.const;
  if (Array.isArray(r.enum)) return r.enum.find((v) => v !== null);
  const variants = (r.anyOf ?? r.oneOf) as Schema[] | undefined;
  if (variants) return sampleOf(variants[0]!);
  if (Array.isArray(r.allOf)) return Object.assign({}, ...(r.allOf as Schema[]).map(sampleOf));
  const type = Array.isArray(r.type) ? (r.type as string[]).find((t) => t !== 'null') : r.type;
  switch (type) {
    case 'string':
      return 'm'.repeat(Math.max(1, (r.minLength as number | undefined) ?? 1));
    case 'integer':
    case 'number':
      return (r.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: (r.minItems as number | undefined) ?? 0 }, () => sampleOf((r.items ?? {}) as Schema));
    case 'object': {
      const props = (r.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(((r.required ?? []) as string[]).map((k) => [k, sampleOf(props[k] ?? {})]));
    }
    default:
      return 'm';
  }
};
