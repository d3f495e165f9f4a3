import { PERSISTED_FIELDS } from '../../formats/persistedFields';
import { SOURCE_FORMATS, type SourceFormat } from '../../presets/events';
import { code, type Row } from './row';

/** Rows of settings that every format having them keeps alike, or nearly: sampling, limits, stop sequences, one format's own parts. */

/** A field of the same name, meaning and (within each format's own limits) value in every format that has it. */
export const same = (field: string): Row => {
  const formats = SOURCE_FORMATS.filter((f) =>
    PERSISTED_FIELDS.some((r) => r.format === f && r.field === field && r.disposition === 'config'),
  );
  if (formats.length === 0) throw new Error(`${field} is not a config field of any format`);
  return {
    setting: field,
    at: Object.fromEntries(formats.map((f) => [f, code(field)])),
    how: 'as is',
    reads: Object.fromEntries(formats.map((f) => [f, [field]])),
    translate({ from, to, src, put, drop }) {
      if (!formats.includes(from)) return;
      const value = src.take(field);
      if (value === undefined) return;
      if (formats.includes(to)) put(field, value, field);
      else drop(field, `${to} has no ${field}`);
    },
  };
};

const OUTPUT_LIMIT: Record<SourceFormat, string> = {
  chat_completions: 'max_completion_tokens',
  messages: 'max_tokens',
  responses: 'max_output_tokens',
};

export const outputLimit: Row = {
  setting: 'output length limit',
  at: { chat_completions: '`max_completion_tokens` (or `max_tokens`)', messages: '`max_tokens`', responses: '`max_output_tokens`' },
  how: 'the number as is; from chat_completions, `max_completion_tokens` when both are set',
  reads: { chat_completions: ['max_completion_tokens', 'max_tokens'], messages: ['max_tokens'], responses: ['max_output_tokens'] },
  translate({ from, to, src, put, drop }) {
    let origin = OUTPUT_LIMIT[from];
    let value = src.take(origin);
    if (from === 'chat_completions') {
      const legacy = src.take('max_tokens');
      if (value === undefined) [value, origin] = [legacy, 'max_tokens'];
      else if (legacy !== undefined) drop('max_tokens', 'max_completion_tokens is used: both are the output length limit');
    }
    if (value !== undefined) put(OUTPUT_LIMIT[to], value, origin);
  },
};

export const stop: Row = {
  setting: 'stop sequences',
  at: { chat_completions: '`stop`', messages: '`stop_sequences`' },
  how: 'a string becomes a list of one; chat_completions takes at most 4',
  reads: { chat_completions: ['stop'], messages: ['stop_sequences'] },
  translate({ from, to, src, put, drop }) {
    if (from === 'responses') return;
    const origin = from === 'chat_completions' ? 'stop' : 'stop_sequences';
    const value = src.take(origin);
    if (value === undefined) return;
    const list = typeof value === 'string' ? [value] : value;
    if (to === 'responses') drop(origin, 'responses has no stop sequences');
    else if (to === 'messages') put('stop_sequences', list, origin);
    else if (Array.isArray(list) && list.length > 4)
      drop(origin, `chat_completions takes at most 4 stop sequences, and there are ${list.length}`);
    else put('stop', list, origin);
  },
};

/** A part of one format's object field that no other format has. */
export const ownPart = (format: SourceFormat, field: string, key: string, setting: string): Row => ({
  setting,
  at: { [format]: code(`${field}.${key}`) },
  how: `${format} only`,
  reads: { [format]: [field] },
  translate({ from, to, src, drop }) {
    if (from !== format) return;
    if (src.take(field, key) !== undefined) drop(`${field}.${key}`, `${to} has no ${setting}`);
  },
});
