import type { SourceFormat } from '../presets/events';

/**
 * What happens to each field of each request format: the single source of truth for what a
 * preset keeps. `toDraft` derives config keys from it and the README shows it rendered.
 */
export type Disposition = 'config' | 'system_prompt' | 'not_persisted';

export interface FieldRow {
  format: SourceFormat;
  field: string;
  disposition: Disposition;
  reason: string;
}

const C = 'chat_completions';
const M = 'messages';
const R = 'responses';
const ALL = [C, M, R] as const;

type Entry = readonly [field: string, formats: readonly SourceFormat[], disposition: Disposition, reason: string];

// One entry per field and disposition, listing the formats that carry it: every field of the request
// schemas of OpenRouter's reference (ChatRequest, MessagesRequest, ResponsesRequest), no other.
const ENTRIES: readonly Entry[] = [
  ['model', ALL, 'config', 'which model serves the preset'],
  ['models', ALL, 'config', 'models to route between'],
  ['temperature', ALL, 'config', 'sampling setting'],
  ['top_p', ALL, 'config', 'sampling setting'],
  ['top_k', ALL, 'config', 'sampling setting'],
  ['min_p', [C], 'config', 'sampling setting'],
  ['top_a', [C], 'config', 'sampling setting'],
  ['repetition_penalty', [C], 'config', 'sampling setting'],
  ['frequency_penalty', [C, R], 'config', 'sampling setting'],
  ['presence_penalty', [C, R], 'config', 'sampling setting'],
  ['seed', [C], 'config', 'sampling setting'],
  ['logit_bias', [C], 'config', 'sampling setting'],
  ['max_tokens', [C, M], 'config', 'output length limit'],
  ['max_completion_tokens', [C], 'config', 'output length limit'],
  ['max_output_tokens', [R], 'config', 'output length limit'],
  ['max_tool_calls', [R], 'config', 'limit on tool calls'],
  ['stop', [C], 'config', 'where generation stops'],
  ['stop_sequences', [M], 'config', 'where generation stops'],
  ['stop_server_tools_when', ALL, 'config', 'when the server-tool loop stops'],
  ['logprobs', [C], 'config', 'what the output includes'],
  ['top_logprobs', [C, R], 'config', 'what the output includes'],
  ['include', [R], 'config', 'what the output includes'],
  ['modalities', [C, R], 'config', 'what the output includes'],
  ['image_config', [C, R], 'config', 'image output setting'],
  ['response_format', [C], 'config', 'output format'],
  ['text', [R], 'config', 'output format and verbosity'],
  ['output_config', [M], 'config', 'output format and effort'],
  ['tools', ALL, 'config', 'tools the model may call'],
  ['tool_choice', ALL, 'config', 'how the model picks tools'],
  ['parallel_tool_calls', [C, R], 'config', 'how the model calls tools'],
  ['reasoning', [C, R], 'config', 'reasoning setting'],
  ['reasoning_effort', [C], 'config', 'reasoning setting'],
  ['thinking', [M], 'config', 'reasoning setting'],
  ['provider', ALL, 'config', 'provider routing preference'],
  ['fallbacks', [M], 'config', 'models to fall back to'],
  ['route', ALL, 'config', 'routing setting'],
  ['service_tier', ALL, 'config', 'processing tier'],
  ['speed', [M], 'config', 'processing speed'],
  ['plugins', ALL, 'config', 'plugins and their settings'],
  ['cache_control', ALL, 'config', 'prompt caching setting'],
  ['prompt_cache_options', [C, R], 'config', 'prompt caching setting'],
  ['truncation', [R], 'config', 'how an overlong context is handled'],
  ['context_management', [M], 'config', 'how the context is managed'],
  ['messages', [C], 'system_prompt', 'the conversation is per request; its first system message is kept as system_prompt'],
  ['system', [M], 'system_prompt', 'kept as system_prompt'],
  ['instructions', [R], 'system_prompt', 'kept as system_prompt'],
  ['messages', [M], 'not_persisted', 'the conversation is per request'],
  ['input', [R], 'not_persisted', 'the input is per request'],
  ['prompt', [R], 'not_persisted', 'a prompt template reference is per request'],
  ['stream', ALL, 'not_persisted', 'transport of one request'],
  ['stream_options', [C], 'not_persisted', 'transport of one request'],
  ['debug', [C, R], 'not_persisted', 'debugging of one request'],
  ['prediction', [C], 'not_persisted', 'predicted output of one request'],
  ['background', [R], 'not_persisted', 'how one request runs'],
  ['store', [R], 'not_persisted', 'only false is accepted: nothing to keep'],
  ['session_id', ALL, 'not_persisted', 'identifies a session, not a configuration'],
  ['trace', ALL, 'not_persisted', 'observability data of one request'],
  ['metadata', ALL, 'not_persisted', 'tags one request'],
  ['user', ALL, 'not_persisted', 'identifies an end user'],
  ['safety_identifier', [R], 'not_persisted', 'identifies an end user'],
  ['previous_response_id', [R], 'not_persisted', 'points into one conversation'],
  ['prompt_cache_key', [C, R], 'not_persisted', 'cache key of one request'],
];

/** The table: one row per (format, field). */
export const PERSISTED_FIELDS: readonly FieldRow[] = ENTRIES.flatMap(([field, formats, disposition, reason]) =>
  formats.map((format) => ({ format, field, disposition, reason })),
);

/** The fields of a format, all of them or those of one disposition, in table order. */
export const fieldsOf = (format: SourceFormat, disposition?: Disposition): string[] =>
  PERSISTED_FIELDS.filter((r) => r.format === format && (disposition ?? r.disposition) === r.disposition).map((r) => r.field);

/** The table as Markdown, one line per entry, sorted by field: the README holds this verbatim. */
export const renderFieldTable = (): string => {
  const sorted = [...ENTRIES].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); // stable: same field keeps its order
  const lines = sorted.map(([field, formats, disposition, reason]) => {
    const cells = ALL.map((format) => (formats.includes(format) ? disposition : '—'));
    return `| ${field} | ${cells.join(' | ')} | ${reason} |`;
  });
  const header = ['| field | chat_completions | messages | responses | reason |', '|---|---|---|---|---|'];
  return [...header, ...lines].join('\n') + '\n';
};
