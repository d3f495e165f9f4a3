import { mergeRequest, mergeTools } from '#src/resolve/merge';
import type { Translation } from '#src/resolve/translation';

const preset = (config: Record<string, unknown>, origins: Record<string, string> = {}): Translation => ({
  config,
  dropped: [],
  origins: new Map(Object.entries(origins)),
});
const fn = (name: string, description = name) => ({ type: 'function', function: { name, description } });

describe('the shallow merge', () => {
  it('a field set in the request wins; the preset fills what the request leaves out or sets to null', () => {
    const { request, dropped } = mergeRequest(
      'chat_completions',
      { model: 'mine', temperature: null, messages: [], top_p: 0.5 },
      preset({ model: 'theirs', temperature: 0.2, top_p: 0.9, seed: 7, provider: { order: ['a'] } }),
      '',
    );
    expect(request).toEqual({ model: 'mine', temperature: 0.2, messages: [], top_p: 0.5, seed: 7, provider: { order: ['a'] } });
    expect(dropped).toEqual([]);
  });

  it("is shallow: an object field of the request replaces the preset's whole", () => {
    const { request } = mergeRequest('responses', { reasoning: { summary: 'auto' } }, preset({ reasoning: { effort: 'high' } }), '');
    expect(request.reasoning).toEqual({ summary: 'auto' });
  });

  it("two names of one chat setting are one field: the request's wins over the preset's other name, which is listed", () => {
    const { request, dropped } = mergeRequest(
      'chat_completions',
      { messages: [], max_tokens: 100, reasoning_effort: 'low' },
      preset(
        { max_completion_tokens: 500, reasoning: { effort: 'high', summary: 'auto' } },
        { max_completion_tokens: 'max_tokens', 'reasoning.effort': 'output_config.effort' },
      ),
      '',
    );
    expect(request).toEqual({ messages: [], max_tokens: 100, reasoning_effort: 'low', reasoning: { summary: 'auto' } });
    expect(dropped).toEqual([
      { field: 'max_tokens', reason: 'the request sets max_tokens' },
      { field: 'output_config.effort', reason: 'the request sets reasoning_effort' },
    ]);
  });
});

describe('tools by identity', () => {
  it("the preset's first, in order; a request tool of the same identity takes its place; the request's others follow", () => {
    const merged = mergeTools(
      'chat_completions',
      [fn('a'), { type: 'openrouter:web_search' }, fn('b'), fn('c')],
      [fn('x'), fn('b', 'mine'), { type: 'openrouter:web_search', parameters: { max_results: 1 } }, fn('y')],
    );
    expect(merged).toEqual([
      fn('a'),
      { type: 'openrouter:web_search', parameters: { max_results: 1 } },
      fn('b', 'mine'),
      fn('c'),
      fn('x'),
      fn('y'),
    ]);
  });

  it("knows each format's function tools by their name", () => {
    expect(
      mergeTools(
        'messages',
        [
          { name: 'f', input_schema: {} },
          { type: 'custom', name: 'g', input_schema: {} },
        ],
        [{ type: 'custom', name: 'f', input_schema: { mine: 1 } }],
      ),
    ).toEqual([
      { type: 'custom', name: 'f', input_schema: { mine: 1 } },
      { type: 'custom', name: 'g', input_schema: {} },
    ]);
    expect(
      mergeTools('responses', [{ type: 'function', name: 'f', parameters: null }], [{ type: 'function', name: 'f', parameters: { a: 1 } }]),
    ).toEqual([{ type: 'function', name: 'f', parameters: { a: 1 } }]);
  });

  it('tells named tools of one type apart, and keeps tools it cannot identify', () => {
    const preset = [{ type: 'custom', name: 'sql' }, { type: 'custom', name: 'regex' }, { weird: true }];
    expect(mergeTools('responses', preset, [{ type: 'custom', name: 'regex', format: 'mine' }, { weird: true }])).toEqual([
      { type: 'custom', name: 'sql' },
      { type: 'custom', name: 'regex', format: 'mine' },
      { weird: true },
      { weird: true },
    ]);
  });

  it('puts every request tool of an identity in the place of the first preset tool of it', () => {
    expect(mergeTools('chat_completions', [fn('a', '1'), fn('z'), fn('a', '2')], [fn('a', 'r1'), fn('a', 'r2')])).toEqual([
      fn('a', 'r1'),
      fn('a', 'r2'),
      fn('z'),
    ]);
  });

  it("in the merge: the union when both have tools, the preset's when the request has none", () => {
    expect(mergeRequest('chat_completions', { messages: [], tools: [fn('b')] }, preset({ tools: [fn('a')] }), '').request.tools).toEqual([
      fn('a'),
      fn('b'),
    ]);
    expect(mergeRequest('chat_completions', { messages: [] }, preset({ tools: [fn('a')] }), '').request.tools).toEqual([fn('a')]);
  });
});

describe('the system prompt', () => {
  it('chat_completions: a leading system message, unless the request has a system message of its own', () => {
    const user = { role: 'user', content: 'hi' };
    expect(mergeRequest('chat_completions', { messages: [user] }, preset({}), 'Be terse.').request.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      user,
    ]);
    const own = [user, { role: 'system', content: 'Mine.' }];
    expect(mergeRequest('chat_completions', { messages: own }, preset({}), 'Be terse.').request.messages).toEqual(own);
    // a developer message is conversation, as when a preset is made from a body
    const developer = [{ role: 'developer', content: 'Dev.' }];
    expect(mergeRequest('chat_completions', { messages: developer }, preset({}), 'Be terse.').request.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      ...developer,
    ]);
  });

  it("messages: system; responses: instructions; the request's own wins, even an empty one; null is not one", () => {
    expect(mergeRequest('messages', { model: 'm', messages: [] }, preset({}), 'Be terse.').request.system).toBe('Be terse.');
    expect(mergeRequest('messages', { model: 'm', messages: [], system: '' }, preset({}), 'Be terse.').request.system).toBe('');
    expect(
      mergeRequest('messages', { model: 'm', messages: [], system: [{ type: 'text', text: 'Mine.' }] }, preset({}), 'Be terse.').request
        .system,
    ).toEqual([{ type: 'text', text: 'Mine.' }]);
    expect(mergeRequest('responses', { input: 'hi' }, preset({}), 'Be terse.').request.instructions).toBe('Be terse.');
    expect(mergeRequest('responses', { input: 'hi', instructions: null }, preset({}), 'Be terse.').request.instructions).toBe('Be terse.');
    expect(mergeRequest('responses', { input: 'hi', instructions: 'Mine.' }, preset({}), 'Be terse.').request.instructions).toBe('Mine.');
  });

  it('an empty system prompt places nothing', () => {
    expect(mergeRequest('responses', { input: 'hi' }, preset({}), '').request).toEqual({ input: 'hi' });
    expect(mergeRequest('chat_completions', { messages: [] }, preset({}), '').request).toEqual({ messages: [] });
  });

  it('keeps messages and input as sent', () => {
    const input = [{ role: 'user', content: 'hi' }];
    expect(mergeRequest('responses', { input }, preset({}), 'S').request.input).toBe(input);
  });
});
