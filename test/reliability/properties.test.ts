import fc from 'fast-check';
import type { FormatName } from '#src/formats';
import { fieldsOf } from '#src/formats/persistedFields';
import { FORMAT_ROUTES } from '#src/http/routes/writes';
import { useApiSpecification } from '../support/apiSpecification';

/**
 * Property tests over HTTP, for each request format: any JSON body gets 200 or a 4xx (never a
 * 5xx) and a 4xx stores nothing; a valid body keeps exactly the fields the table marks 'config'.
 */
jest.setTimeout(120_000);
const RUNS = 100;
const svc = useApiSpecification({ LOG_LEVEL: 'warn' });

// Free-form JSON without the keys the service refuses on purpose (tested in hostile.test.ts).
const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => !/__proto__|prototype/.test(JSON.stringify(v)));
const str = fc.string({ maxLength: 12 });
// The service refuses a `__proto__` key anywhere (400), so valid bodies never carry one as a key.
const key = (maxLength: number) => fc.string({ maxLength }).filter((k) => k !== '__proto__');
const obj = fc.dictionary(str, json, { maxKeys: 3 }).filter((v) => !/__proto__|prototype/.test(JSON.stringify(v)));
const objs = fc.array(obj, { maxLength: 2 });
const real = (min: number, max: number) => fc.double({ min, max, noNaN: true });
const text = fc.array(fc.record({ type: fc.constant('text'), text: str }), { minLength: 1, maxLength: 2 });

/** A valid value for every field of every format (the tightest limit where formats differ). */
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  model: str,
  models: fc.array(str, { maxLength: 3 }),
  temperature: real(0, 2),
  top_p: real(0, 1),
  top_k: fc.nat(),
  frequency_penalty: real(-2, 2),
  presence_penalty: real(-2, 2),
  seed: fc.integer(),
  logit_bias: fc.dictionary(key(12), real(-100, 100)),
  max_tokens: fc.nat(),
  max_completion_tokens: fc.nat(),
  max_output_tokens: fc.nat(),
  max_tool_calls: fc.nat(),
  stop: fc.oneof(str, fc.array(str, { maxLength: 4 })),
  stop_sequences: fc.array(str, { maxLength: 3 }),
  stop_server_tools_when: fc.array(obj, { minLength: 1, maxLength: 2 }),
  logprobs: fc.boolean(),
  top_logprobs: fc.integer({ min: 0, max: 20 }),
  include: fc.subarray(['file_search_call.results', 'message.input_image.image_url', 'reasoning.encrypted_content']),
  modalities: fc.subarray(['text', 'image']),
  image_config: fc.dictionary(key(8), fc.oneof(str, real(-1e6, 1e6), fc.array(json, { maxLength: 2 })), { maxKeys: 3 }),
  response_format: obj,
  text: obj,
  output_config: obj,
  tools: objs,
  tool_choice: obj,
  parallel_tool_calls: fc.boolean(),
  reasoning: obj,
  thinking: obj,
  provider: obj,
  route: fc.constantFrom('fallback', 'sort', null),
  plugins: objs,
  cache_control: obj,
  service_tier: fc.constantFrom('auto', 'default', 'fast', 'flex', 'priority', 'scale'),
  speed: fc.constantFrom('fast', 'standard', null),
  truncation: fc.constantFrom('auto', 'disabled', null),
  context_management: obj,
  input: str,
  prompt: obj,
  stream: fc.boolean(),
  stream_options: obj,
  debug: obj,
  background: fc.boolean(),
  store: fc.constant(false),
  session_id: str,
  trace: obj,
  user: str,
  safety_identifier: str,
  previous_response_id: str,
  prompt_cache_key: str,
  instructions: str,
  min_p: real(0, 1),
  top_a: real(0, 1),
  repetition_penalty: real(0, 2),
  prediction: obj,
  prompt_cache_options: obj,
  fallbacks: objs,
  reasoning_effort: fc.constantFrom('max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none', null),
  metadata: fc.dictionary(
    key(10).filter((k) => !/[[\]]/.test(k)),
    str,
    { maxKeys: 4 },
  ),
};
const SPECIAL: Record<FormatName, Record<string, fc.Arbitrary<unknown>>> = {
  chat_completions: {
    messages: fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: str }), { maxLength: 3 }),
  },
  messages: { messages: objs, system: fc.oneof(str, text) },
  responses: {},
};
const REQUIRED: Record<FormatName, string[]> = { chat_completions: ['messages'], messages: ['model', 'messages'], responses: [] };

const validBody = (format: FormatName) => {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of fieldsOf(format)) {
    const arb = SPECIAL[format][field] ?? VALID[field];
    if (!arb) throw new Error(`no valid-value generator for ${format}.${field}: add one to VALID`);
    model[field] = arb;
  }
  return fc.record(model, { requiredKeys: REQUIRED[format] });
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const expectedSystemPrompt = (format: FormatName, body: Record<string, any>): string => {
  if (format === 'responses') return body.instructions ?? '';
  if (format === 'messages')
    return typeof body.system === 'string' ? body.system : (body.system ?? []).map((b: { text: string }) => b.text).join('\n\n');
  return body.messages.find((m: { role: string }) => m.role === 'system')?.content ?? '';
};

const head = async () => (await svc.eventStore.headPosition()) ?? 0n;
const post = (path: string, slug: string, body: unknown) =>
  svc.request(`/api/v1/presets/${slug}/${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
/** 200 or 4xx; a 4xx leaves the event store as it was; a 200 keeps only config fields. */
const tolerated = (format: FormatName, path: string, slug: string) => async (body: unknown) => {
  const before = await head();
  const res = await post(path, slug, body);
  expect(res.status === 200 || (res.status >= 400 && res.status < 500)).toBe(true);
  const answer = await res.json();
  if (res.status !== 200) {
    expect(answer.error.code).toBe(res.status);
    expect(await head()).toBe(before);
  } else {
    for (const key of Object.keys(answer.data.designated_version.config)) expect(fieldsOf(format, 'config')).toContain(key);
  }
};

describe.each(FORMAT_ROUTES.map(([path, format]) => ({ path, format })))('$format', ({ path, format }) => {
  it('any JSON value as the body: 200 or 4xx, never 5xx; a 4xx stores nothing', async () => {
    await fc.assert(fc.asyncProperty(json, tolerated(format, path, `any-${format}`)), { numRuns: RUNS });
  });

  it("objects made of the format's own field names with arbitrary values: 200 or 4xx; a 4xx stores nothing", async () => {
    const fields = Object.fromEntries(fieldsOf(format).map((f) => [f, json]));
    const biased = fc
      .tuple(fc.record(fields, { requiredKeys: [] }), fc.option(validBody(format), { nil: undefined }))
      .map(([wild, base]) => ({ ...base, ...wild }));
    await fc.assert(fc.asyncProperty(biased, tolerated(format, path, `biased-${format}`)), { numRuns: RUNS });
  });

  it('a valid body keeps exactly its config fields, values as sent, and its system prompt', async () => {
    await fc.assert(
      fc.asyncProperty(validBody(format), async (generated) => {
        const body = JSON.parse(JSON.stringify(generated)) as Record<string, unknown>; // as the server sees it
        const res = await post(path, `valid-${format}`, body);
        const answer = await res.json();
        expect([res.status, answer.error]).toEqual([200, undefined]);
        const expected = Object.fromEntries(
          fieldsOf(format, 'config')
            .filter((f) => body[f] !== undefined && body[f] !== null)
            .map((f) => [f, body[f]]),
        );
        expect(answer.data.designated_version.config).toEqual(expected);
        expect(answer.data.designated_version.system_prompt).toBe(expectedSystemPrompt(format, body));
      }),
      { numRuns: RUNS },
    );
  });
});
