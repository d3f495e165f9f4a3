import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PERSISTED_FIELDS, fieldsOf } from '#src/formats/persistedFields';
import { SOURCE_FORMATS } from '#src/presets/events';
import { SERVER_TOOLS } from '#src/resolve/tools';
import { renderTranslationTable, TRANSLATION_TABLE, translateConfig } from '#src/resolve/translation';
import { reference } from '#support/reference';

const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const PARAMS = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const fieldsDropped = (dropped: readonly { field: string }[]) => dropped.map((d) => d.field).sort();
const reasonOf = (dropped: readonly { field: string; reason: string }[], field: string) => dropped.find((d) => d.field === field)?.reason;

describe('a version resolved for its own format', () => {
  it.each(SOURCE_FORMATS)('%s: the config as it is, nothing dropped', (format) => {
    const config = { model: 'm', temperature: 0.3, tools: [{ anything: true }], weird: 1 };
    expect(translateConfig(format, format, config)).toMatchObject({ config, dropped: [] });
  });
});

describe('chat_completions → messages', () => {
  const config = {
    model: 'openai/gpt-4o',
    temperature: 0.3,
    max_completion_tokens: 512,
    max_tokens: 100,
    stop: 'END',
    min_p: 0.1,
    seed: 4,
    response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: SCHEMA } },
    reasoning: { effort: 'high', summary: 'auto', max_tokens: 2000 },
    tools: [
      { type: 'function', function: { name: 'lookup', description: 'Look it up', parameters: PARAMS, strict: true } },
      { type: 'openrouter:web_search', parameters: { max_results: 3 } },
      { type: 'openrouter:advisor' },
      { type: 'web_search_preview' },
    ],
    tool_choice: { type: 'function', function: { name: 'lookup' } },
    parallel_tool_calls: false,
    provider: { order: ['openai'] },
  };
  const { config: out, dropped } = translateConfig('chat_completions', 'messages', config);

  it('puts each setting where messages keeps it, in its shape', () => {
    expect(out).toEqual({
      model: 'openai/gpt-4o',
      temperature: 0.3,
      max_tokens: 512,
      stop_sequences: ['END'],
      output_config: { format: { type: 'json_schema', schema: SCHEMA }, effort: 'high' },
      thinking: { type: 'enabled', budget_tokens: 2000 },
      tools: [
        { name: 'lookup', description: 'Look it up', input_schema: PARAMS },
        { type: 'openrouter:web_search', parameters: { max_results: 3 } },
      ],
      tool_choice: { type: 'tool', name: 'lookup', disable_parallel_tool_use: true },
      provider: { order: ['openai'] },
    });
  });

  it('lists everything it could not place, where it was, with why', () => {
    expect(fieldsDropped(dropped)).toEqual([
      'max_tokens',
      'min_p',
      'reasoning.summary',
      'response_format.json_schema.name',
      'response_format.json_schema.strict',
      'seed',
      'tools[0].function.strict',
      'tools[2]',
      'tools[3]',
    ]);
    expect(reasonOf(dropped, 'min_p')).toBe('messages has no min_p');
    expect(reasonOf(dropped, 'max_tokens')).toMatch(/max_completion_tokens is used/);
    expect(reasonOf(dropped, 'tools[2]')).toBe('messages has no openrouter:advisor tool');
    expect(reasonOf(dropped, 'tools[3]')).toMatch(/a web_search_preview tool is chat_completions's own/);
  });
});

describe('messages → chat_completions', () => {
  const config = {
    model: 'anthropic/claude-sonnet-4',
    max_tokens: 1024,
    top_k: 40,
    stop_sequences: ['a', 'b', 'c', 'd', 'e'],
    thinking: { type: 'enabled', budget_tokens: 4000, display: 'summarized' },
    output_config: { effort: 'medium', format: { type: 'json_schema', schema: SCHEMA }, task_budget: { type: 'tokens', total: 30000 } },
    tools: [
      { name: 'lookup', description: 'Look it up', input_schema: PARAMS, cache_control: { type: 'ephemeral' } },
      { type: 'bash_20250124', name: 'bash' },
    ],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
    speed: 'fast',
    service_tier: 'batch',
  };
  const { config: out, dropped } = translateConfig('messages', 'chat_completions', config);

  it('puts each setting where chat_completions keeps it, in its shape', () => {
    expect(out).toEqual({
      model: 'anthropic/claude-sonnet-4',
      top_k: 40,
      max_completion_tokens: 1024,
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA } },
      reasoning: { effort: 'medium', max_tokens: 4000 },
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', description: 'Look it up', parameters: PARAMS },
          cache_control: { type: 'ephemeral' },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
  });

  it('lists what it dropped: too many stop sequences, what chat lacks, a value chat does not take', () => {
    expect(fieldsDropped(dropped)).toEqual([
      'output_config.task_budget',
      'service_tier',
      'speed',
      'stop_sequences',
      'thinking.display',
      'tools[1]',
    ]);
    expect(reasonOf(dropped, 'stop_sequences')).toBe('chat_completions takes at most 4 stop sequences, and there are 5');
    expect(reasonOf(dropped, 'service_tier')).toMatch(/^chat_completions does not take this value for service_tier: expected service tier/);
  });
});

describe('responses → chat_completions and messages', () => {
  const config = {
    text: { format: { type: 'json_object' }, verbosity: 'low' },
    reasoning: { effort: 'minimal', mode: 'pro', summary: 'concise' },
    max_output_tokens: 300,
    tools: [
      { type: 'function', name: 'f', parameters: null, strict: true, defer_loading: true },
      { type: 'file_search', vector_store_ids: ['vs_1'] },
    ],
    tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] },
    include: ['reasoning.encrypted_content'],
    truncation: 'auto',
    top_logprobs: 30,
  };

  it('to chat_completions', () => {
    const { config: out, dropped } = translateConfig('responses', 'chat_completions', config);
    expect(out).toEqual({
      max_completion_tokens: 300,
      response_format: { type: 'json_object' },
      reasoning: { effort: 'minimal', mode: 'pro', summary: 'concise' },
      tools: [{ type: 'function', function: { name: 'f', strict: true } }],
    });
    expect(fieldsDropped(dropped)).toEqual([
      'include',
      'text.verbosity',
      'tool_choice',
      'tools[0].defer_loading',
      'tools[1]',
      'top_logprobs',
      'truncation',
    ]);
    expect(reasonOf(dropped, 'top_logprobs')).toMatch(/integer from 0 to 20/);
  });

  it('to messages: a function without parameters gets an empty input schema; json_object and minimal effort have no counterpart', () => {
    const { config: out, dropped } = translateConfig('responses', 'messages', config);
    expect(out).toEqual({ max_tokens: 300, tools: [{ name: 'f', input_schema: { type: 'object', properties: {} }, defer_loading: true }] });
    expect(fieldsDropped(dropped)).toEqual([
      'include',
      'reasoning.effort',
      'reasoning.mode',
      'reasoning.summary',
      'text.format',
      'text.verbosity',
      'tool_choice',
      'tools[0].strict',
      'tools[1]',
      'top_logprobs',
      'truncation',
    ]);
  });
});

describe('the output format between chat_completions and responses', () => {
  it('moves a JSON schema between the nested and the flat shape, both ways', () => {
    const chat = {
      response_format: { type: 'json_schema', json_schema: { name: 'answer', description: 'd', schema: SCHEMA, strict: true } },
    };
    const responses = { text: { format: { type: 'json_schema', name: 'answer', description: 'd', schema: SCHEMA, strict: true } } };
    expect(translateConfig('chat_completions', 'responses', chat)).toMatchObject({ config: responses, dropped: [] });
    expect(translateConfig('responses', 'chat_completions', responses)).toMatchObject({ config: chat, dropped: [] });
  });

  it('drops a JSON schema format without a schema, and a chat-only grammar', () => {
    expect(
      translateConfig('chat_completions', 'responses', { response_format: { type: 'json_schema', json_schema: { name: 'x' } } }).dropped,
    ).toEqual([{ field: 'response_format', reason: expect.stringMatching(/without a schema/) }]);
    expect(
      translateConfig('chat_completions', 'responses', { response_format: { type: 'grammar', grammar: 'root ::= "a"' } }),
    ).toMatchObject({ config: {}, dropped: [{ field: 'response_format', reason: 'responses has no grammar output format' }] });
  });

  it('names a schema "response" for chat_completions when the name is longer than chat allows', () => {
    const long = 'n'.repeat(65);
    const { config, dropped } = translateConfig('responses', 'chat_completions', {
      text: { format: { type: 'json_schema', name: long, schema: SCHEMA } },
    });
    expect(config).toEqual({ response_format: { type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA } } });
    expect(dropped).toEqual([{ field: 'text.format.name', reason: expect.stringMatching(/at most 64 characters/) }]);
  });
});

describe('reasoning', () => {
  it('chat_completions: reasoning.effort wins over reasoning_effort, and the loser is listed', () => {
    const { config, dropped } = translateConfig('chat_completions', 'responses', {
      reasoning: { effort: 'low' },
      reasoning_effort: 'high',
    });
    expect(config).toEqual({ reasoning: { effort: 'low' } });
    expect(dropped).toEqual([{ field: 'reasoning_effort', reason: expect.stringMatching(/reasoning.effort is used/) }]);
    expect(translateConfig('chat_completions', 'messages', { reasoning_effort: 'high' }).config).toEqual({
      output_config: { effort: 'high' },
    });
  });

  it('an empty reasoning object beside reasoning_effort is no conflict', () => {
    expect(translateConfig('chat_completions', 'responses', { reasoning: {}, reasoning_effort: 'low' })).toMatchObject({
      config: { reasoning: { effort: 'low' } },
      dropped: [],
    });
  });

  it('on and off: enabled false turns thinking off and drops a budget; enabled true alone is adaptive thinking', () => {
    const off = translateConfig('chat_completions', 'messages', { reasoning: { enabled: false, max_tokens: 100 } });
    expect(off.config).toEqual({ thinking: { type: 'disabled' } });
    expect(fieldsDropped(off.dropped)).toEqual(['reasoning.max_tokens']);
    expect(translateConfig('responses', 'messages', { reasoning: { enabled: true } }).config).toEqual({ thinking: { type: 'adaptive' } });
    expect(translateConfig('messages', 'responses', { thinking: { type: 'disabled' } }).config).toEqual({ reasoning: { enabled: false } });
    expect(translateConfig('messages', 'chat_completions', { thinking: { type: 'adaptive', display: 'omitted' } })).toMatchObject({
      config: { reasoning: { enabled: true } },
      dropped: [{ field: 'thinking.display' }],
    });
  });

  it('responses refuses reasoning values chat_completions lets through', () => {
    const { config, dropped } = translateConfig('chat_completions', 'responses', {
      reasoning: { mode: 'turbo', context: 'auto', exclude: true, enabled: 'yes' },
    });
    expect(config).toEqual({ reasoning: { context: 'auto', exclude: true } });
    expect(fieldsDropped(dropped)).toEqual(['reasoning.enabled', 'reasoning.mode']);
  });
});

describe('tool choice and parallel tool calls', () => {
  it.each([
    ['none', { type: 'none' }],
    ['auto', { type: 'auto' }],
    ['required', { type: 'any' }],
  ])('chat_completions %j ↔ messages %j', (chat, messages) => {
    expect(translateConfig('chat_completions', 'messages', { tool_choice: chat }).config).toEqual({ tool_choice: messages });
    expect(translateConfig('messages', 'chat_completions', { tool_choice: messages }).config).toEqual({ tool_choice: chat });
    expect(translateConfig('messages', 'responses', { tool_choice: messages }).config).toEqual({ tool_choice: chat });
  });

  it('one function: the three shapes', () => {
    expect(translateConfig('chat_completions', 'responses', { tool_choice: { type: 'function', function: { name: 'f' } } }).config).toEqual(
      { tool_choice: { type: 'function', name: 'f' } },
    );
    expect(translateConfig('responses', 'messages', { tool_choice: { type: 'function', name: 'f' } }).config).toEqual({
      tool_choice: { type: 'tool', name: 'f' },
    });
  });

  it('parallel_tool_calls rides on a messages tool choice, inverted; without one it is dropped and said why', () => {
    expect(translateConfig('responses', 'messages', { tool_choice: 'auto', parallel_tool_calls: true }).config).toEqual({
      tool_choice: { type: 'auto', disable_parallel_tool_use: false },
    });
    const alone = translateConfig('chat_completions', 'messages', { parallel_tool_calls: false });
    expect(alone.config).toEqual({});
    expect(alone.dropped).toEqual([{ field: 'parallel_tool_calls', reason: expect.stringMatching(/no tool choice/) }]);
    expect(
      translateConfig('chat_completions', 'messages', { tool_choice: 'none', parallel_tool_calls: false }).dropped.map((d) => d.field),
    ).toEqual(['parallel_tool_calls']);
  });
});

describe('the table', () => {
  it('reads every config field of every format', () => {
    const unread = PERSISTED_FIELDS.filter((r) => r.disposition === 'config')
      .filter((r) => !TRANSLATION_TABLE.some((row) => row.reads[r.format]?.includes(r.field)))
      .map((r) => `${r.format}.${r.field}`);
    expect(unread).toEqual([]);
  });

  it('is in docs/formats.md, rendered', () => {
    const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'formats.md'), 'utf8');
    const between = /<!-- translation:begin -->\n([\s\S]*?)<!-- translation:end -->/.exec(page);
    expect(between?.[1]).toBe(renderTranslationTable());
  });

  it('carries exactly the openrouter:* server tools the reference lists for each format', () => {
    const schemas = reference().components.schemas;
    const resolve = (s: Record<string, unknown>): Record<string, unknown> =>
      typeof s.$ref === 'string' ? resolve(schemas[s.$ref.split('/').pop()!]!) : s;
    const typesOf = (items: Record<string, unknown>): string[] =>
      ((resolve(items).anyOf ?? []) as Array<Record<string, unknown>>).flatMap((branch) => {
        const b = resolve(branch);
        const props = Object.assign(
          {},
          ...[b, ...((b.allOf ?? []) as Array<Record<string, unknown>>).map(resolve)].map((p) => p.properties ?? {}),
        ) as Record<string, Record<string, unknown>>;
        return ((props.type?.enum ?? []) as string[]).filter((t) => t.startsWith('openrouter:'));
      });
    const REQUEST = { chat_completions: 'ChatRequest', messages: 'MessagesRequest', responses: 'ResponsesRequest' } as const;
    for (const format of SOURCE_FORMATS) {
      const tools = (schemas[REQUEST[format]]!.properties as Record<string, Record<string, unknown>>).tools!;
      expect([...SERVER_TOOLS[format]].sort()).toEqual(typesOf(tools.items as Record<string, unknown>).sort());
    }
  });
});

describe('never silently', () => {
  const value = fc.jsonValue({ maxDepth: 3 });
  const config = (format: (typeof SOURCE_FORMATS)[number]) =>
    fc
      .dictionary(fc.constantFrom(...fieldsOf(format, 'config')), value, { maxKeys: 12 })
      .map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null)));
  const pair = fc.tuple(fc.constantFrom(...SOURCE_FORMATS), fc.constantFrom(...SOURCE_FORMATS)).filter(([a, b]) => a !== b);

  it('every field of a config is placed or listed as dropped, whatever its value', () => {
    fc.assert(
      fc.property(
        pair.chain(([from, to]) => fc.tuple(fc.constant(from), fc.constant(to), config(from))),
        ([from, to, c]) => {
          const { config: out, dropped, origins } = translateConfig(from, to, c);
          const sources = [...origins.values(), ...dropped.map((d) => d.field)];
          for (const [field, v] of Object.entries(c)) {
            // An empty object configures nothing: there is nothing of it to lose.
            if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) continue;
            expect(sources.some((s) => s === field || s.startsWith(`${field}.`) || s.startsWith(`${field}[`))).toBe(true);
          }
          for (const field of Object.keys(out)) expect(origins.has(field)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
