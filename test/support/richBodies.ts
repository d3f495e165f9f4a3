import fc from 'fast-check';
import type { FormatName } from '#src/formats';

/**
 * Request bodies of each format rich in what translation and merging are about: function tools in
 * each shape (with and without parameters, strict, cache_control, defer_loading), server tools and
 * each provider's own, tool choices, output formats, reasoning and thinking, stop sequences, output
 * limits, parallel tool calls and system instructions. Written from OpenRouter's reference shapes;
 * the tests that draw from them keep only those ajv finds valid under the reference.
 */
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const record = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) =>
  fc.record(shape).map((r) => defined(r as Record<string, unknown>));

const name = fc.constantFrom('lookup', 'search', 'escalate', 'get_weather');
const text = fc.constantFrom('Find it.', 'Search the knowledge base.', '');
const schema = fc.constantFrom(
  { type: 'object', properties: {} },
  { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  { type: 'object', properties: { id: { type: 'integer' }, full: { type: 'boolean' } }, required: ['id'], additionalProperties: false },
);
const cacheControl = fc.constantFrom({ type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' });
const effort = fc.constantFrom('max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none');
const model = fc.constantFrom('openai/gpt-4o', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-pro');
const stops = fc.array(fc.constantFrom('END', '\n\n', '###', 'STOP', '</answer>'), { maxLength: 6 });

const chatTools = fc.array(
  fc.oneof(
    record({ name, description: opt(text), parameters: opt(schema), strict: opt(fc.boolean()) }).chain((fn) =>
      record({ type: fc.constant('function'), function: fc.constant(fn), cache_control: opt(cacheControl) }),
    ),
    fc.constantFrom(
      { type: 'openrouter:web_search' },
      { type: 'openrouter:advisor' },
      { type: 'openrouter:datetime' },
      { type: 'web_search_preview' },
    ),
  ),
  { maxLength: 4 },
);
const messagesTools = fc.array(
  fc.oneof(
    record({ name, description: opt(text), input_schema: schema, cache_control: opt(cacheControl), defer_loading: opt(fc.boolean()) }),
    record({ type: fc.constant('custom'), name, input_schema: schema }),
    fc.constantFrom(
      { type: 'bash_20250124', name: 'bash' },
      { type: 'openrouter:web_search' },
      { type: 'openrouter:shell' },
      { type: 'openrouter:datetime' },
    ),
  ),
  { maxLength: 4 },
);
const responsesTools = fc.array(
  fc.oneof(
    record({
      type: fc.constant('function'),
      name,
      description: opt(text),
      parameters: fc.option(schema, { nil: null }),
      strict: opt(fc.boolean()),
      defer_loading: opt(fc.boolean()),
    }),
    fc.constantFrom(
      { type: 'file_search', vector_store_ids: ['vs_1'] },
      { type: 'openrouter:apply_patch' },
      { type: 'openrouter:web_search' },
      { type: 'openrouter:datetime' },
    ),
  ),
  { maxLength: 4 },
);

const chatBody = record({
  model: opt(model),
  messages: fc.constantFrom(
    [],
    [{ role: 'user', content: 'hi' }],
    [
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'hi' },
    ],
  ),
  temperature: opt(fc.constantFrom(0, 0.3, 1, 1.7)),
  top_p: opt(fc.constantFrom(0.5, 1)),
  max_tokens: opt(fc.constantFrom(256, 1024)),
  max_completion_tokens: opt(fc.constantFrom(512, 2048)),
  stop: opt(
    fc.oneof(
      fc.constantFrom('END'),
      stops.filter((s) => s.length <= 4),
    ),
  ),
  tools: opt(chatTools),
  tool_choice: opt(
    fc.oneof(
      fc.constantFrom('none', 'auto', 'required'),
      name.map((n) => ({ type: 'function', function: { name: n } })),
    ),
  ),
  parallel_tool_calls: opt(fc.boolean()),
  response_format: opt(
    fc.oneof(
      fc.constantFrom({ type: 'text' }, { type: 'json_object' }, { type: 'grammar', grammar: 'root ::= "a"' }),
      record({ name: fc.constantFrom('answer', 'response'), schema: opt(schema), strict: opt(fc.boolean()), description: opt(text) }).map(
        (js) => ({ type: 'json_schema', json_schema: js }),
      ),
    ),
  ),
  reasoning: opt(
    record({
      effort: opt(effort),
      summary: opt(fc.constantFrom('auto', 'concise', 'detailed')),
      max_tokens: opt(fc.constantFrom(1024, 4096)),
      enabled: opt(fc.boolean()),
      exclude: opt(fc.boolean()),
    }),
  ),
  reasoning_effort: opt(effort),
  seed: opt(fc.constantFrom(1, 42)),
  min_p: opt(fc.constantFrom(0.05)),
});

const messagesBody = record({
  model,
  messages: fc.constantFrom([], [{ role: 'user', content: 'hi' }]),
  system: opt(fc.oneof(fc.constantFrom('Be terse.', ''), fc.constant([{ type: 'text', text: 'Be terse.' }]))),
  temperature: opt(fc.constantFrom(0, 0.5, 1)),
  max_tokens: opt(fc.constantFrom(512, 4096)),
  top_k: opt(fc.constantFrom(5, 40)),
  stop_sequences: opt(stops),
  tools: opt(messagesTools),
  tool_choice: opt(
    fc.oneof(
      record({ type: fc.constantFrom('auto', 'any'), disable_parallel_tool_use: opt(fc.boolean()) }),
      fc.constant({ type: 'none' }),
      record({ type: fc.constant('tool'), name, disable_parallel_tool_use: opt(fc.boolean()) }),
    ),
  ),
  thinking: opt(
    fc.oneof(
      record({
        type: fc.constant('enabled'),
        budget_tokens: fc.constantFrom(1024, 8000),
        display: opt(fc.constantFrom('summarized', 'omitted')),
      }),
      fc.constant({ type: 'disabled' }),
      record({ type: fc.constant('adaptive'), display: opt(fc.constantFrom('summarized', 'omitted')) }),
    ),
  ),
  output_config: opt(
    record({
      effort: opt(fc.constantFrom('low', 'medium', 'high', 'xhigh', 'max')),
      format: opt(schema.map((s) => ({ type: 'json_schema', schema: s }))),
      task_budget: opt(fc.constant({ type: 'tokens', total: 30000 })),
    }),
  ),
  service_tier: opt(fc.constantFrom('auto', 'standard_only')),
  speed: opt(fc.constantFrom('fast', 'standard')),
});

const responsesBody = record({
  model: opt(model),
  input: opt(fc.constantFrom('hi', [{ role: 'user', content: 'hi' }])),
  instructions: opt(fc.constantFrom('Be terse.', '')),
  temperature: opt(fc.constantFrom(0, 0.7, 1.5)),
  max_output_tokens: opt(fc.constantFrom(300, 3000)),
  tools: opt(responsesTools),
  tool_choice: opt(
    fc.oneof(
      fc.constantFrom('none', 'auto', 'required', { type: 'allowed_tools', mode: 'auto', tools: [] }),
      name.map((n) => ({ type: 'function', name: n })),
    ),
  ),
  parallel_tool_calls: opt(fc.boolean()),
  text: opt(
    record({
      format: opt(
        fc.oneof(
          fc.constantFrom({ type: 'text' }, { type: 'json_object' }),
          record({ name: fc.constantFrom('answer', 'n'.repeat(70)), schema, strict: opt(fc.boolean()) }).map((f) => ({
            type: 'json_schema',
            ...f,
          })),
        ),
      ),
      verbosity: opt(fc.constantFrom('low', 'high')),
    }),
  ),
  reasoning: opt(
    record({
      effort: opt(effort),
      summary: opt(fc.constantFrom('auto', 'concise')),
      mode: opt(fc.constantFrom('standard', 'pro')),
      context: opt(fc.constantFrom('auto', 'all_turns')),
      enabled: opt(fc.boolean()),
      max_tokens: opt(fc.constantFrom(1024, 4096)),
    }),
  ),
  truncation: opt(fc.constantFrom('auto', 'disabled')),
  top_logprobs: opt(fc.constantFrom(5, 30)),
});

export const RICH_BODIES: Readonly<Record<FormatName, fc.Arbitrary<Record<string, unknown>>>> = {
  chat_completions: chatBody,
  messages: messagesBody,
  responses: responsesBody,
};
