import type { JsonSchema } from './api/types';

/**
 * A templated version's variables as the console shows and asks for them: each declared variable
 * with its type in words, and a form field of the kind its schema calls for. What the form gives
 * is sent as `prompt_variables`; the service checks it against the schema and fills in defaults.
 */
export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'json';

export interface Field {
  name: string;
  kind: FieldKind;
  /** The type in words: `string`, `one of "en", "fr"`, `list of string`, `integer or null`. */
  type: string;
  required: boolean;
  choices: unknown[];
  default?: unknown;
  description?: string;
}

const shown = (value: unknown) => JSON.stringify(value);

export const typeText = (schema: JsonSchema | boolean | undefined): string => {
  if (schema === undefined || schema === true || typeof schema !== 'object') return 'any value';
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(shown).join(', ')}`;
  if ('const' in schema) return `exactly ${shown(schema.const)}`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return schema.$ref ? `as ${String(schema.$ref)}` : 'any value';
  const words = types.map((type) => {
    if (type === 'array') return schema.items ? `list of ${typeText(schema.items)}` : 'list';
    if (type === 'string' && schema.format) return `string (${schema.format})`;
    if (type === 'string' && schema.pattern) return `string matching ${schema.pattern}`;
    return type;
  });
  return words.join(' or ');
};

const kindOf = (schema: JsonSchema): FieldKind => {
  if (Array.isArray(schema.enum)) return 'choice';
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []).filter((t) => t !== 'null');
  if (types.length !== 1) return 'json';
  const [type] = types;
  return type === 'string' ? 'text' : type === 'number' || type === 'integer' || type === 'boolean' ? type : 'json';
};

/** The fields of a variables schema, in the order it declares its properties. */
export const fieldsOf = (schema: JsonSchema | null | undefined): Field[] => {
  if (!schema || typeof schema.properties !== 'object' || schema.properties === null) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const p = typeof property === 'object' && property !== null ? property : {};
    return {
      name,
      kind: kindOf(p),
      type: typeText(p),
      required: required.has(name),
      choices: Array.isArray(p.enum) ? p.enum : [],
      ...('default' in p ? { default: p.default } : {}),
      ...(typeof p.description === 'string' ? { description: p.description } : {}),
    };
  });
};

/**
 * The values a form gives, by name, from what its inputs hold (text; a choice's index; `true` or
 * `false`): an empty input gives nothing (so the schema's default applies, or a required one is
 * missing, which the service says). A number or JSON that does not read is a problem here.
 */
export const valuesOf = (fields: Field[], raw: Record<string, string>): { values: Record<string, unknown>; problems: string[] } => {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const text = raw[field.name] ?? '';
    if (text.trim() === '') continue;
    switch (field.kind) {
      case 'text':
        values[field.name] = text;
        break;
      case 'number':
      case 'integer': {
        const n = Number(text);
        if (Number.isFinite(n)) values[field.name] = n;
        else problems.push(`${field.name}: ${JSON.stringify(text)} is not a number`);
        break;
      }
      case 'boolean':
        values[field.name] = text === 'true';
        break;
      case 'choice':
        values[field.name] = field.choices[Number(text)];
        break;
      case 'json':
        try {
          values[field.name] = JSON.parse(text) as unknown;
        } catch {
          problems.push(`${field.name}: not valid JSON`);
        }
        break;
    }
  }
  return { values, problems };
};
