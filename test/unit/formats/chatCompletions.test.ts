import { draftOf, pairs, pathsFor, problemsOf, repeat } from './helpers';

const F = 'chat_completions';

describe('chat_completions: a real-world body', () => {
  const weatherTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  };
  const responseFormat = {
    type: 'json_schema',
    json_schema: { name: 'weather', strict: true, schema: { type: 'object', properties: { temp_c: { type: 'number' } } } },
  };
  const body = {
    model: 'openai/gpt-4o',
    messages: [
      { role: 'system', content: 'You are a terse weather assistant.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'system', content: 'A later system message is not the system prompt.' },
    ],
    tools: [weatherTool],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    response_format: responseFormat,
    temperature: 0.2,
    max_completion_tokens: 512,
    stop: ['\n\n'],
    seed: 42,
    stream: true,
    stream_options: { include_usage: true },
    user: 'user-1234',
    session_id: 'sess-1',
    metadata: { team: 'weather' },
    trace: { trace_id: 't-1' },
    debug: { echo_upstream_body: true },
    provider: { order: ['openai'], allow_fallbacks: false },
  };

  it('keeps the model configuration, verbatim, and the first system message', () => {
    expect(draftOf(F, body)).toEqual({
      config: {
        model: 'openai/gpt-4o',
        tools: [weatherTool],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        response_format: responseFormat,
        temperature: 0.2,
        max_completion_tokens: 512,
        stop: ['\n\n'],
        seed: 42,
        provider: { order: ['openai'], allow_fallbacks: false },
      },
      systemPrompt: 'You are a terse weather assistant.',
    });
  });

  it('keeps the same object a client sent, not a copy re-shaped by validation', () => {
    expect(draftOf(F, body).config.tools).toBe(body.tools);
  });
});

describe('chat_completions: system prompt', () => {
  const prompt = (messages: unknown[]) => draftOf(F, { messages }).systemPrompt;

  it('joins the text parts of an array content with a blank line, skipping other parts', () => {
    const content = [
      { type: 'text', text: 'Be brief.' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
    ];
    expect(
      prompt([
        { role: 'user', content: 'hi' },
        { role: 'system', content },
      ]),
    ).toBe('Be brief.\n\nAnswer in French.');
  });

  it('is empty without a system message, with null content, or for a developer message', () => {
    expect(prompt([{ role: 'user', content: 'hi' }])).toBe('');
    expect(prompt([{ role: 'system', content: null }])).toBe('');
    expect(prompt([{ role: 'system' }])).toBe('');
    expect(prompt([{ role: 'developer', content: 'not a system role' }])).toBe('');
  });

  it('rejects a text part without text instead of dropping it', () => {
    const messages = [{ role: 'system', content: [{ type: 'text' }] }];
    expect(problemsOf(F, { messages }).map((p) => p.path)).toEqual(['$.messages[0].content[0]']);
  });
});

describe('chat_completions: messages', () => {
  it('is required, a list of objects with a string role', () => {
    expect(problemsOf(F, {})).toEqual([{ path: '$.messages', message: 'expected list of messages, got nothing' }]);
    expect(problemsOf(F, { messages: [{ role: 'user' }, 'hi'] }).map((p) => p.path)).toEqual(['$.messages[1]']);
    expect(problemsOf(F, { messages: [{ content: 'hi' }] })).toEqual([
      { path: '$.messages[0].role', message: 'expected string, got nothing' },
    ]);
    expect(problemsOf(F, { messages: [{ role: 'user', content: 3 }] })).toEqual([
      { path: '$.messages[0].content', message: 'expected string, list of content parts, or null, got number 3' },
    ]);
  });
});

describe('chat_completions: limits of spec part 8, on both sides', () => {
  const ok = (field: string, value: unknown) => expect(pathsFor(F, field, value)).toEqual([]);
  const bad = (field: string, value: unknown, path = `$.${field}`) => expect(pathsFor(F, field, value)).toEqual([path]);

  it('session_id: at most 256 characters, counted as code points', () => {
    ok('session_id', repeat(256));
    ok('session_id', repeat(256, '😀'));
    bad('session_id', repeat(257));
  });

  it('metadata: at most 16 pairs, keys up to 64, values up to 512 characters', () => {
    ok('metadata', pairs(16));
    bad('metadata', pairs(17));
    ok('metadata', { [repeat(64)]: 'v', 'a[b]': 'brackets are fine here' });
    bad('metadata', { [repeat(65)]: 'v' }, `$.metadata.${repeat(65)}`);
    ok('metadata', { k: repeat(512) });
    bad('metadata', { k: repeat(513) }, '$.metadata.k');
    bad('metadata', { k: 1 }, '$.metadata.k');
  });

  it('stop: a string or up to 4 strings', () => {
    ok('stop', 'END');
    ok('stop', null);
    ok('stop', ['a', 'b', 'c', 'd']);
    bad('stop', ['a', 'b', 'c', 'd', 'e']);
    bad('stop', ['a', 1], '$.stop[1]');
    bad('stop', 7);
  });

  it.each(['frequency_penalty', 'presence_penalty'])('%s: -2 to 2', (field) => {
    for (const v of [-2, 0, 2, null]) ok(field, v);
    for (const v of [-2.0001, 2.0001, '1']) bad(field, v);
  });

  it('temperature: 0 to 2; top_p: 0 to 1', () => {
    for (const v of [0, 1.3, 2, null]) ok('temperature', v);
    for (const v of [-0.0001, 2.0001]) bad('temperature', v);
    for (const v of [0, 1, null]) ok('top_p', v);
    for (const v of [-0.0001, 1.0001]) bad('top_p', v);
  });

  it('top_logprobs: an integer from 0 to 20', () => {
    for (const v of [0, 20, null]) ok('top_logprobs', v);
    for (const v of [-1, 21, 2.5]) bad('top_logprobs', v);
  });

  it('token counts are integers, with no minimum: neither the reference nor part 8 states one (16 is a provider rule)', () => {
    for (const field of ['max_tokens', 'max_completion_tokens']) {
      for (const v of [-1, 0, 1, 15, 16, null]) ok(field, v);
      for (const v of [16.5, '16']) bad(field, v);
    }
  });

  it('numbers must be finite: 1e400 parses to Infinity', () => {
    const body = JSON.parse('{"messages": [], "seed": 1e400, "logit_bias": {"50256": -1e400}}');
    expect(
      problemsOf(F, body)
        .map((p) => p.path)
        .sort(),
    ).toEqual(['$.logit_bias["50256"]', '$.seed']);
    ok('seed', -3);
    bad('seed', 0.5);
  });

  it('modalities: text, image, audio', () => {
    ok('modalities', ['text', 'image', 'audio']);
    bad('modalities', ['text', 'video'], '$.modalities[1]');
  });

  it('user has no length limit in chat-completions', () => ok('user', repeat(1000)));
});
