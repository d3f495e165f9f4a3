import { SOURCE_FORMATS } from '#src/presets/events';
import { PERSISTED_FIELDS, fieldsOf, renderFieldTable } from '#src/formats/persistedFields';
import * as chatCompletions from '#src/formats/chatCompletions';
import * as messages from '#src/formats/messages';
import * as responses from '#src/formats/responses';
import { referenceFields } from '#support/reference';

const sorted = (xs: readonly string[]) => [...xs].sort();
const CODEC_FIELDS = { chat_completions: chatCompletions.fields, messages: messages.fields, responses: responses.fields };

describe('the persisted-fields table', () => {
  it.each(SOURCE_FORMATS)(
    '%s: has exactly one row per field of the reference request schema, and the codec knows the same fields',
    (format) => {
      const reference = sorted(referenceFields(format));
      expect(reference.length).toBeGreaterThan(20);
      const rows = sorted(fieldsOf(format));
      // Both ways: a reference field without a row, and a row for a field the reference does not have.
      expect({
        withoutRow: reference.filter((f) => !rows.includes(f)),
        notInReference: rows.filter((f) => !reference.includes(f)),
      }).toEqual({ withoutRow: [], notInReference: [] });
      expect(new Set(fieldsOf(format)).size).toBe(reference.length);
      expect(sorted(CODEC_FIELDS[format])).toEqual(reference);
    },
  );

  it('takes the system prompt from one field per format', () => {
    expect(fieldsOf('chat_completions', 'system_prompt')).toEqual(['messages']);
    expect(fieldsOf('messages', 'system_prompt')).toEqual(['system']);
    expect(fieldsOf('responses', 'system_prompt')).toEqual(['instructions']);
  });

  it('never puts conversation, transport or per-request fields in config', () => {
    const never = [
      'messages',
      'input',
      'prompt',
      'stream',
      'system',
      'instructions',
      'session_id',
      'trace',
      'user',
      'metadata',
      'debug',
      'stream_options',
      'previous_response_id',
      'safety_identifier',
      'prompt_cache_key',
      'background',
      'store',
      'prediction',
    ];
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
    expect(lines).toContain('| top_k | config | config | config | sampling setting |');
    expect(lines).toContain('| repetition_penalty | config | — | — | sampling setting |');
    expect(lines).toContain('| instructions | — | — | system_prompt | kept as system_prompt |');
    expect(lines.filter((l) => l.startsWith('| messages |'))).toHaveLength(2);
    for (const line of lines.filter((l) => !l.startsWith('|---'))) expect(line.split(' | ')).toHaveLength(5);
  });
});
