import { draftOf, pairs, pathsFor, problemsOf, repeat } from './helpers';

const F = 'messages';

describe('messages: a real-world body', () => {
  const tools = [
    {
      name: 'get_stock_price',
      description: 'Latest price of a ticker',
      input_schema: { type: 'object', properties: { ticker: { type: 'string' } }, required: ['ticker'] },
      cache_control: { type: 'ephemeral' },
    },
  ];
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 16000,
    system: [
      { type: 'text', text: 'You are a financial analyst.' },
      { type: 'text', text: 'Cite every figure.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'How is ACME doing?' }] }],
    thinking: { type: 'enabled', budget_tokens: 10000 },
    tools,
    tool_choice: { type: 'auto' },
    stop_sequences: ['</answer>'],
    temperature: 1,
    top_k: 40,
    metadata: { user_id: 'u-42' },
    stream: true,
    user: 'u-42',
    session_id: 'sess-9',
    trace: { trace_name: 'analyst' },
  };

  it('keeps the model configuration and joins the system text blocks with a blank line', () => {
    expect(draftOf(F, body)).toEqual({
      config: {
        model: 'claude-sonnet-4-5',
        max_tokens: 16000,
        thinking: { type: 'enabled', budget_tokens: 10000 },
        tools,
        tool_choice: { type: 'auto' },
        stop_sequences: ['</answer>'],
        temperature: 1,
        top_k: 40,
      },
      systemPrompt: 'You are a financial analyst.\n\nCite every figure.',
    });
  });
});

describe('messages: system prompt', () => {
  const prompt = (system: unknown) => draftOf(F, { model: 'm', messages: null, ...(system === undefined ? {} : { system }) });

  it('is the string, empty when system is missing; null is refused, as the reference does not allow it', () => {
    expect(prompt('Be kind.').systemPrompt).toBe('Be kind.');
    expect(prompt(undefined).systemPrompt).toBe('');
    expect(prompt([]).systemPrompt).toBe('');
    expect(pathsFor(F, 'system', null)).toEqual(['$.system']);
  });

  it('rejects a non-text block, at its type', () => {
    const system = [
      { type: 'text', text: 'a' },
      { type: 'image', source: {} },
    ];
    expect(problemsOf(F, { model: 'm', messages: [], system })).toEqual([
      { path: '$.system[1].type', message: 'expected "text", got string "image"' },
    ]);
    expect(pathsFor(F, 'system', [{ type: 'text' }])).toEqual(['$.system[0].text']);
    expect(pathsFor(F, 'system', 5)).toEqual(['$.system']);
  });
});

describe('messages: required fields and types', () => {
  it('requires model and messages (a list of objects, or null)', () => {
    expect(problemsOf(F, { messages: [] }).map((p) => p.path)).toEqual(['$.model']);
    expect(problemsOf(F, { model: 'm' }).map((p) => p.path)).toEqual(['$.messages']);
    expect(problemsOf(F, { model: 'm', messages: null })).toEqual([]);
    expect(problemsOf(F, { model: 'm', messages: ['hi'] }).map((p) => p.path)).toEqual(['$.messages[0]']);
  });

  it('checks only the outer type of the object fields', () => {
    expect(pathsFor(F, 'thinking', { anything: ['goes'] })).toEqual([]);
    expect(pathsFor(F, 'thinking', [])).toEqual(['$.thinking']);
    expect(pathsFor(F, 'tools', [{}, 'x'])).toEqual(['$.tools[1]']);
    expect(pathsFor(F, 'context_management', null)).toEqual([]);
  });
});

describe('messages: limits', () => {
  it('session_id and user: at most 256 characters', () => {
    for (const field of ['session_id', 'user']) {
      expect(pathsFor(F, field, repeat(256))).toEqual([]);
      expect(pathsFor(F, field, repeat(257))).toEqual([`$.${field}`]);
    }
  });

  it('has no range limits of its own, but numbers are finite and counts are integers', () => {
    expect(pathsFor(F, 'temperature', 1.5)).toEqual([]);
    expect(problemsOf(F, JSON.parse('{"model": "m", "messages": [], "temperature": 1e400}'))).toEqual([
      { path: '$.temperature', message: 'expected finite number, got number Infinity' },
    ]);
    expect(pathsFor(F, 'top_k', 0)).toEqual([]);
    expect(pathsFor(F, 'top_k', 2.5)).toEqual(['$.top_k']);
    expect(pathsFor(F, 'max_tokens', -1)).toEqual([]);
    expect(pathsFor(F, 'max_tokens', 1.5)).toEqual(['$.max_tokens']);
  });

  it('metadata is any object here: the pair limits are for chat-completions and responses', () => {
    expect(pathsFor(F, 'metadata', pairs(17))).toEqual([]);
    expect(pathsFor(F, 'metadata', 'x')).toEqual(['$.metadata']);
  });
});
