import { SOURCE_FORMATS } from '../../../src/presets/events';
import { PERSISTED_FIELDS, fieldsOf, renderFieldTable } from '../../../src/formats/persistedFields';
import * as chatCompletions from '../../../src/formats/chatCompletions';
import * as messages from '../../../src/formats/messages';
import * as responses from '../../../src/formats/responses';

// Copied by hand from the request-field tables of spec 4.1, 4.2 and 4.3.
const SPEC_FIELDS = {
  chat_completions:
    'messages cache_control debug frequency_penalty image_config logit_bias logprobs max_completion_tokens max_tokens ' +
    'metadata modalities model models parallel_tool_calls plugins presence_penalty provider reasoning response_format ' +
    'route seed service_tier session_id stop stop_server_tools_when stream stream_options temperature tool_choice tools ' +
    'top_logprobs top_p trace user',
  messages:
    'messages model cache_control context_management max_tokens metadata models output_config plugins provider route ' +
    'service_tier session_id speed stop_sequences stop_server_tools_when stream system temperature thinking tool_choice ' +
    'tools top_k top_p trace user',
  responses:
    'background cache_control frequency_penalty image_config include input instructions max_output_tokens max_tool_calls ' +
    'metadata modalities model models parallel_tool_calls plugins presence_penalty previous_response_id prompt ' +
    'prompt_cache_key provider reasoning route safety_identifier service_tier session_id stop_server_tools_when store ' +
    'stream temperature text tool_choice tools top_k top_logprobs top_p trace truncation user',
} as const;
const sorted = (xs: readonly string[]) => [...xs].sort();
const CODEC_FIELDS = { chat_completions: chatCompletions.fields, messages: messages.fields, responses: responses.fields };

describe('the persisted-fields table', () => {
  it.each(SOURCE_FORMATS)('%s: has exactly one row per field of the spec, and the codec knows the same fields', (format) => {
    const spec = sorted(SPEC_FIELDS[format].split(' '));
    expect(sorted(fieldsOf(format))).toEqual(spec);
    expect(new Set(fieldsOf(format)).size).toBe(spec.length);
    expect(sorted(CODEC_FIELDS[format])).toEqual(spec);
  });

  it('takes the system prompt from one field per format', () => {
    expect(fieldsOf('chat_completions', 'system_prompt')).toEqual(['messages']);
    expect(fieldsOf('messages', 'system_prompt')).toEqual(['system']);
    expect(fieldsOf('responses', 'system_prompt')).toEqual(['instructions']);
  });

  it('never puts conversation, transport or per-request fields in config', () => {
    const never = ['messages', 'input', 'prompt', 'stream', 'system', 'instructions', 'session_id', 'trace', 'user',
      'metadata', 'debug', 'stream_options', 'previous_response_id', 'safety_identifier', 'prompt_cache_key',
      'background', 'store'];
    const leaked = PERSISTED_FIELDS.filter((r) => r.disposition === 'config' && never.includes(r.field));
    expect(leaked).toEqual([]);
  });

  it('gives every row a reason', () => {
    expect(PERSISTED_FIELDS.filter((r) => r.reason.trim() === '')).toEqual([]);
  });

  it('renders as Markdown, the same every time, one cell per format', () => {
    const md = renderFieldTable();
    expect(renderFieldTable()).toBe(md);
    const lines = md.trimEnd().split('\n');
    expect(lines[0]).toBe('| field | chat_completions | messages | responses | reason |');
    expect(lines).toContain('| temperature | config | config | config | sampling setting |');
    expect(lines).toContain('| top_k | — | config | config | sampling setting |');
    expect(lines).toContain('| instructions | — | — | system_prompt | kept as system_prompt |');
    expect(lines.filter((l) => l.startsWith('| messages |'))).toHaveLength(2);
    for (const line of lines.filter((l) => !l.startsWith('|---'))) expect(line.split(' | ')).toHaveLength(5);
  });
});
