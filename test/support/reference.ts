import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { FormatName } from '../../src/formats';

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
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
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
    ajvInstance = new Ajv2020({ strict: false, allErrors: true, formats: { double: true, 'anthropic-claude-v1': true, wav: true, mp3: true } });
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
