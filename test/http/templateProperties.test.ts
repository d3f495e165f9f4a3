import fc from 'fast-check';
import { createPresetClient, PresetResolveError, type PresetClient } from '#src/client';
import type { FormatName } from '#src/formats';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The service and `presets/client` fill templated versions in alike (issue 56): for generated
 * templated versions (templates of every construct over typed, required, defaulted, closed and
 * open schemas, with messages, made from every format) and generated values (fitting or not: wrong
 * types, missing names, names the schema does not declare, OpenAI's input parts), given in the
 * body's `prompt_variables`, in a responses body's `prompt`, or as the client's `{ variables }`
 * option, the client's answer or error is the endpoint's, byte for byte.
 */
const SEED = 56;
const ROUTE: Record<FormatName, string> = { chat_completions: 'chat/completions', messages: 'messages', responses: 'responses' };
const FORMATS: readonly FormatName[] = ['chat_completions', 'messages', 'responses'];
type Json = Record<string, unknown>;

let client: PresetClient;
afterAll(async () => {
  await client?.close();
});
const svc = useApiSpecification();

const part: fc.Arbitrary<string> = fc.letrec<{ part: string; parts: string }>((tie) => ({
  parts: fc.array(tie('part'), { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
  part: fc.oneof(
    { depthSize: 'small', maxDepth: 2 },
    fc.constantFrom('Hello ', ' and ', '.\n', '<b>&</b>', '{{!-- note --}}'),
    fc.constantFrom('{{a}}', '{{json c}}', '{{obj.x}}', '{{lookup obj "x"}}', '{{list}}'),
    tie('parts').map((p) => `{{#if b}}${p}{{else}}no{{/if}}`),
    tie('parts').map((p) => `{{#unless b}}${p}{{/unless}}`),
    tie('parts').map((p) => `{{#each list}}{{@index}}:{{this}}${p}{{/each}}`),
    tie('parts').map((p) => `{{#with obj}}[{{x}}]${p}{{/with}}`),
    tie('parts').map((p) => `{{#list}}<{{.}}>${p}{{/list}}`),
    tie('parts').map((p) => `{{#ifEquals a "gold"}}${p}{{/ifEquals}}`),
  ),
})).parts;

const typeOfA = fc.constantFrom<Json>(
  { type: 'string' },
  { type: 'string', enum: ['gold', 'silver'] },
  { type: 'string', default: 'gold' },
  { type: 'integer', minimum: 0 },
  { type: 'string', pattern: '^[a-z]+$', maxLength: 8 },
);
const schema = fc
  .record({
    a: typeOfA,
    b: fc.constantFrom<Json>({ type: 'boolean' }, { type: 'boolean', default: true }, {}),
    c: fc.constantFrom<Json>({}, { type: ['number', 'null'] }, { type: 'array', items: { type: 'integer' }, maxItems: 3 }),
    list: fc.constantFrom<Json>({ type: 'array', items: { type: 'string' } }, { type: 'array' }),
    obj: fc.constantFrom<Json>({ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, { type: 'object' }),
  })
  .chain((properties) =>
    fc.record({
      type: fc.constant('object'),
      properties: fc.constant(properties),
      required: fc.subarray(Object.keys(properties)),
      additionalProperties: fc.boolean(),
    }),
  );
const version = fc.record({
  format: fc.constantFrom(...FORMATS),
  system: part,
  messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: part }), { maxLength: 2 }),
  variables: schema,
});

/** Values fitting the schemas, or not. */
const value = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('gold', 'silver', 'abc'),
  fc.integer({ min: -2, max: 5 }),
  fc.boolean(),
  fc.constant(null),
);
const values = fc.record(
  {
    a: value,
    b: fc.oneof(fc.boolean(), value),
    c: fc.oneof(value, fc.array(fc.integer(), { maxLength: 4 })),
    list: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), value),
    obj: fc.oneof(fc.record({ x: fc.string({ maxLength: 3 }) }), fc.record({ y: value }), value),
    extra: value,
    part: fc.constantFrom<Json>({ type: 'input_text', text: 'from a part' }, { type: 'input_image', image_url: 'https://x/y.png' }),
  },
  { requiredKeys: [] },
);

const slugs: string[] = [];
beforeAll(async () => {
  const versions = fc.sample(version, { seed: SEED, numRuns: 40 });
  for (const [i, v] of versions.entries()) {
    const slug = `templated-${i}`;
    const config: Json = v.format === 'messages' ? { model: 'anthropic/claude-sonnet-4', max_tokens: 100 } : { model: 'openai/gpt-4o' };
    const res = await svc.request(`/api/v1/presets/${slug}/versions`, {
      method: 'POST',
      json: {
        format: v.format,
        config,
        system_prompt: v.system,
        messages: v.messages,
        template_format: 'handlebars',
        variables: v.variables,
      },
    });
    if (res.status === 200) slugs.push(slug);
  }
  // And a plain version, never rendered.
  await svc.request('/api/v1/presets/plain/chat/completions', {
    method: 'POST',
    json: { model: 'openai/gpt-4o', messages: [{ role: 'system', content: 'Literal {{a}}' }] },
  });
  slugs.push('plain');
  client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.readerOnly, fetch: svc.fetch });
  await client.ready();
}, 120_000);

it('makes the generated versions', () => {
  expect(slugs.length).toBeGreaterThan(35);
});

const request = (target: FormatName, slug: string): Json =>
  target === 'messages'
    ? { model: `anthropic/claude-sonnet-4@preset/${slug}`, max_tokens: 10, messages: [{ role: 'user', content: 'q' }] }
    : target === 'responses'
      ? { model: `@preset/${slug}`, input: 'q' }
      : { model: `@preset/${slug}`, messages: [{ role: 'user', content: 'q' }] };

const over = async (target: FormatName, body: Json) => {
  const res = await svc.request(`/api/v1/resolve/${ROUTE[target]}`, { method: 'POST', json: body });
  const answer = await res.json();
  return res.status === 200 ? { ok: answer.data } : { error: answer.error };
};
const local = async (target: FormatName, body: Json, variables?: Json) => {
  try {
    return { ok: await client.resolve(target, body, variables === undefined ? undefined : { variables }) };
  } catch (error) {
    if (!(error instanceof PresetResolveError)) throw error;
    return { error: { code: error.code, message: error.message, metadata: error.metadata } };
  }
};

it('answers every generated request in process exactly as the endpoint does, whichever way the values come', async () => {
  const draw = fc.record({
    slug: fc.constantFrom(...slugs),
    target: fc.constantFrom(...FORMATS),
    values: fc.option(values, { nil: undefined }),
    way: fc.constantFrom('body' as const, 'option' as const, 'prompt' as const),
  });
  const outcomes = new Set<string>();
  await fc.assert(
    fc.asyncProperty(draw, async ({ slug, target, values: given, way }) => {
      const base = request(target, slug);
      const body =
        way === 'prompt' && target === 'responses'
          ? { input: 'q', prompt: { id: slug, ...(given === undefined ? {} : { variables: given }) } }
          : given === undefined
            ? base
            : { ...base, prompt_variables: given };
      const server = await over(target, body);
      const inProcess = way === 'option' && given !== undefined ? await local(target, base, given) : await local(target, body);
      outcomes.add('ok' in server ? 'ok' : String((server.error.metadata as Json).reason ?? server.error.code));
      expect({ body, answer: JSON.stringify(inProcess) }).toEqual({ body, answer: JSON.stringify(server) });
    }),
    { numRuns: 300, seed: SEED },
  );
  // The draws reached both sides: renders and refusals.
  expect([...outcomes]).toEqual(expect.arrayContaining(['ok', 'variables_invalid']));
}, 240_000);
