import { draftOf, pairs, pathsFor, problemsOf, repeat } from './helpers';

const F = 'responses';

describe('responses: a real-world body', () => {
  const textFormat = {
    format: { type: 'json_schema', name: 'summary', schema: { type: 'object', properties: { bullets: { type: 'array' } } } },
    verbosity: 'low',
  };
  const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }];
  const body = {
    model: 'openai/o4-mini',
    instructions: 'Summarise the document in three bullets.',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'Here is the document…' }] },
      { type: 'function_call_output', call_id: 'c1', output: '{}' },
    ],
    reasoning: { effort: 'high', summary: 'auto' },
    text: textFormat,
    tools,
    tool_choice: 'auto',
    max_output_tokens: 2048,
    include: ['reasoning.encrypted_content'],
    truncation: 'auto',
    store: false,
    previous_response_id: 'resp_123',
    prompt_cache_key: 'doc-summaries',
    safety_identifier: 'hash-of-user',
    background: false,
    metadata: { ticket: 'T-1' },
    stream: false,
    temperature: null,
    top_p: 0.9,
  };

  it('keeps the model configuration; instructions become the system prompt; null is not set', () => {
    expect(draftOf(F, body)).toEqual({
      config: {
        model: 'openai/o4-mini',
        reasoning: { effort: 'high', summary: 'auto' },
        text: textFormat,
        tools,
        tool_choice: 'auto',
        max_output_tokens: 2048,
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        top_p: 0.9,
      },
      systemPrompt: 'Summarise the document in three bullets.',
    });
  });

  it('gives an empty system prompt without instructions, or with null', () => {
    expect(draftOf(F, {}).systemPrompt).toBe('');
    expect(draftOf(F, { instructions: null }).systemPrompt).toBe('');
  });
});

describe('responses: types and limits', () => {
  it('store: only false', () => {
    expect(pathsFor(F, 'store', false)).toEqual([]);
    expect(problemsOf(F, { store: true })).toEqual([
      { path: '$.store', message: 'expected false (only store: false is accepted), got boolean' },
    ]);
  });

  it('session_id and user: at most 256 characters', () => {
    for (const field of ['session_id', 'user']) {
      expect(pathsFor(F, field, repeat(256))).toEqual([]);
      expect(pathsFor(F, field, repeat(257))).toEqual([`$.${field}`]);
    }
  });

  it('metadata: at most 16 pairs, keys up to 64 characters without brackets, values up to 512', () => {
    expect(pathsFor(F, 'metadata', pairs(16))).toEqual([]);
    expect(pathsFor(F, 'metadata', pairs(17))).toEqual(['$.metadata']);
    expect(pathsFor(F, 'metadata', { [repeat(64)]: repeat(512) })).toEqual([]);
    expect(pathsFor(F, 'metadata', { [repeat(65)]: 'v' })).toEqual([`$.metadata.${repeat(65)}`]);
    expect(pathsFor(F, 'metadata', { k: repeat(513) })).toEqual(['$.metadata.k']);
    expect(problemsOf(F, { metadata: { 'a[0]': 'x', ok: 'y', 'b]': 'z' } })).toEqual([
      { path: '$.metadata["a[0]"]', message: 'expected key of at most 64 characters without [ or ], got string "a[0]"' },
      { path: '$.metadata["b]"]', message: 'expected key of at most 64 characters without [ or ], got string "b]"' },
    ]);
  });

  it('input: a string or a list of objects', () => {
    expect(pathsFor(F, 'input', 'hello')).toEqual([]);
    expect(pathsFor(F, 'input', [{ role: 'user', content: 'hi' }, 3])).toEqual(['$.input[1]']);
    expect(pathsFor(F, 'input', 3)).toEqual(['$.input']);
  });

  it('modalities: text and image only', () => {
    expect(pathsFor(F, 'modalities', ['text', 'image'])).toEqual([]);
    expect(pathsFor(F, 'modalities', ['audio'])).toEqual(['$.modalities[0]']);
  });

  it('counts are integers, with no minimum the reference does not state; the chat-completions ranges do not apply', () => {
    for (const field of ['max_output_tokens', 'max_tool_calls', 'top_logprobs', 'top_k']) {
      expect(pathsFor(F, field, 0)).toEqual([]);
      expect(pathsFor(F, field, -1)).toEqual([]);
      expect(pathsFor(F, field, 1.5)).toEqual([`$.${field}`]);
    }
    expect(pathsFor(F, 'top_logprobs', 21)).toEqual([]);
    expect(pathsFor(F, 'temperature', 2.5)).toEqual([]);
    expect(problemsOf(F, JSON.parse('{"top_p": -1e400}')).map((p) => p.path)).toEqual(['$.top_p']);
  });
});
