import type { SourceFormat } from '../../presets/events';
import { isObject, present, type Json, type Row } from './row';

/** The output format row: JSON schema, text and json_object, as each format says them. */

/** The name of a JSON schema output format made from messages', which has none (the other two need one). */
export const OUTPUT_SCHEMA_NAME = 'response';
const OUTPUT_FORMAT_AT: Record<SourceFormat, [string, string]> = {
  chat_completions: ['response_format', ''],
  messages: ['output_config', 'format'],
  responses: ['text', 'format'],
};

/** An output format, whatever its format: its type, a JSON schema's parts, and anything else it had, with where each was. */
interface OutputFormat {
  type: unknown;
  parts: Array<{ key: 'name' | 'schema' | 'strict' | 'description'; value: unknown; at: string }>;
  other: string[];
}

const readOutputFormat = (from: SourceFormat, value: Json, at: string): OutputFormat => {
  const parts: OutputFormat['parts'] = [];
  const other: string[] = [];
  const collect = (object: Json, prefix: string, skip: string[]) => {
    for (const [key, v] of Object.entries(object)) {
      if (skip.includes(key)) continue;
      if (key === 'name' || key === 'schema' || key === 'strict' || key === 'description')
        parts.push({ key, value: v, at: `${prefix}.${key}` });
      else other.push(`${prefix}.${key}`);
    }
  };
  if (from === 'chat_completions' && value.type === 'json_schema') {
    collect(value, at, ['type', 'json_schema']);
    if (isObject(value.json_schema)) collect(value.json_schema, `${at}.json_schema`, []);
  } else collect(value, at, ['type']);
  return { type: value.type, parts, other };
};

export const outputFormat: Row = {
  setting: 'output format',
  at: { chat_completions: '`response_format`', messages: '`output_config.format`', responses: '`text.format`' },
  how:
    'JSON schema: `{"type":"json_schema","json_schema":{name, schema, strict, description}}` ↔ `{"type":"json_schema", schema}` ↔ ' +
    `\`{"type":"json_schema", name, schema, strict, description}\` (named \`"${OUTPUT_SCHEMA_NAME}"\` when made from messages, which names none); ` +
    '`text` and `json_object` between chat_completions and responses only',
  reads: { chat_completions: ['response_format'], messages: ['output_config'], responses: ['text'] },
  translate({ from, to, src, put, drop }) {
    const [field, key] = OUTPUT_FORMAT_AT[from];
    const at = key ? `${field}.${key}` : field;
    const value = key ? src.take(field, key) : src.take(field);
    if (!present(value)) return;
    if (!isObject(value)) return drop(at, 'not an output format (an object)');
    const format = readOutputFormat(from, value, at);
    const [toField, toKey] = OUTPUT_FORMAT_AT[to];
    const target = toKey ? `${toField}.${toKey}` : toField;
    if (format.type !== 'json_schema') {
      if ((format.type === 'text' || format.type === 'json_object') && to !== 'messages') return put(target, { type: format.type }, at);
      return drop(
        at,
        `${to} has no ${typeof format.type === 'string' ? format.type : 'such'} output format${to === 'messages' ? ' (its only one is json_schema)' : ''}`,
      );
    }
    for (const other of format.other) drop(other, `${to}'s output format has no such field`);
    const part = (k: OutputFormat['parts'][number]['key']) => format.parts.find((p) => p.key === k);
    const schema = part('schema');
    if (!schema || !isObject(schema.value))
      return drop(at, `a JSON schema output format without a schema: ${to === 'chat_completions' ? 'chat_completions' : to} needs one`);
    if (to === 'messages') {
      for (const p of format.parts) if (p.key !== 'schema') drop(p.at, `messages' output format has no ${p.key}`);
      return put(target, { type: 'json_schema', schema: schema.value }, at);
    }
    const name = part('name');
    let chosen = typeof name?.value === 'string' ? name.value : OUTPUT_SCHEMA_NAME;
    if (name && typeof name.value !== 'string') drop(name.at, `not a name (a string); "${OUTPUT_SCHEMA_NAME}" is used`);
    if (to === 'chat_completions' && [...chosen].length > 64) {
      drop(name!.at, `chat_completions takes a name of at most 64 characters; "${OUTPUT_SCHEMA_NAME}" is used`);
      chosen = OUTPUT_SCHEMA_NAME;
    }
    const rest = Object.fromEntries(format.parts.filter((p) => p.key === 'description' || p.key === 'strict').map((p) => [p.key, p.value]));
    const spec = {
      name: chosen,
      ...('description' in rest ? { description: rest.description } : {}),
      schema: schema.value,
      ...('strict' in rest ? { strict: rest.strict } : {}),
    };
    put(target, to === 'chat_completions' ? { type: 'json_schema', json_schema: spec } : { type: 'json_schema', ...spec }, at);
  },
};
