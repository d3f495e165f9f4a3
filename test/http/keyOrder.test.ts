import fc from 'fast-check';
import { createPresetClient } from '#src/client';
import { startReceiver, type Receiver } from '../support/receiver';
import { openSse } from '../support/sse';
import { until } from '../support/until';
import { useApiSpecification } from '../support/apiSpecification';
import { verifyOffline } from '../support/offlineVerifier';
import { KEYS } from '../support/service';

/**
 * What you store is what you get: a version's config comes back with its keys in the order the
 * client sent them, at every depth, through every path that gives it back, across a restart, and
 * in the audit export that the offline verifier accepts (issue 53). The same order through the
 * embedded store's files, a restart of the real service and a rebuild: test/http/persistence.test.ts
 * and test/e2e/rebuild.test.ts. Bodies of the
 * three formats are generated with random key orders at several depths (fast-check); each
 * path's text of a config is held to JSON.stringify of what was sent. Integer-like keys are left
 * out of the generated objects: JavaScript orders those first, as docs/formats.md says.
 */
jest.setTimeout(240_000);

const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '100' });

type Json = Record<string, unknown>;
type Format = 'chat_completions' | 'messages' | 'responses';
const FORMATS: readonly Format[] = ['chat_completions', 'messages', 'responses'];
const PATH: Record<Format, string> = { chat_completions: 'chat/completions', messages: 'messages', responses: 'responses' };
/** The fields of the generated bodies that are not a version's config (the messages, and the system instruction). */
const NOT_CONFIG: Record<Format, readonly string[]> = {
  chat_completions: ['messages'],
  messages: ['messages', 'system'],
  responses: ['input', 'instructions'],
};

// Generators: every object's keys in a random order.
const permuted = <T extends Json>(arb: fc.Arbitrary<T>): fc.Arbitrary<Json> =>
  arb.chain((o) => {
    const entries = Object.entries(o).filter(([, v]) => v !== undefined);
    return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }).map((e) => Object.fromEntries(e));
  });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const word = fc.stringMatching(/^[a-z][a-z_]{0,8}$/);
const words = fc.constantFrom('Think step by step.', 'The final answer.', 'A city name', '');
const leaf = permuted(fc.record({ type: fc.constantFrom('string', 'number', 'boolean'), description: opt(words) }));
const schema: fc.Arbitrary<Json> = fc.letrec<{ object: Json }>((tie) => ({
  object: fc
    .dictionary(word, fc.oneof({ depthSize: 'small', maxDepth: 2 }, leaf, tie('object')), { minKeys: 2, maxKeys: 5 })
    .chain((properties) =>
      permuted(
        fc.record({
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.shuffledSubarray(Object.keys(properties)),
          additionalProperties: fc.constant(false),
          description: opt(words),
        }),
      ),
    ),
})).object;
const provider = permuted(
  fc.record({
    order: fc.shuffledSubarray(['openai', 'azure', 'together'], { minLength: 1 }),
    allow_fallbacks: fc.boolean(),
    sort: opt(fc.constantFrom('price', 'latency')),
    max_price: opt(permuted(fc.record({ prompt: fc.integer({ min: 1, max: 9 }), completion: fc.integer({ min: 1, max: 9 }) }))),
  }),
);
const toolName = fc.stringMatching(/^[a-z]{1,8}$/);
const model = fc.constantFrom('openai/gpt-4o', 'anthropic/claude-sonnet-4');
const system = fc.constantFrom('You are terse.', 'Answer in French.');

const bodies: Record<Format, fc.Arbitrary<Json>> = {
  chat_completions: permuted(
    fc.record({
      model,
      temperature: opt(fc.constantFrom(0, 0.3, 1)),
      messages: system.map((content) => [
        { role: 'system', content },
        { role: 'user', content: 'hi' },
      ]),
      response_format: permuted(
        fc.record({
          type: fc.constant('json_schema'),
          json_schema: permuted(fc.record({ name: toolName, strict: fc.boolean(), schema, description: opt(words) })),
        }),
      ),
      tools: fc.array(
        permuted(
          fc.record({
            type: fc.constant('function'),
            function: permuted(fc.record({ name: toolName, description: opt(words), parameters: schema })),
          }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      provider: opt(provider),
    }),
  ),
  messages: permuted(
    fc.record({
      model,
      max_tokens: fc.constantFrom(256, 1024),
      system,
      messages: fc.constant([{ role: 'user', content: 'hi' }]),
      output_config: permuted(fc.record({ format: permuted(fc.record({ type: fc.constant('json_schema'), schema })) })),
      tools: fc.array(permuted(fc.record({ name: toolName, description: opt(words), input_schema: schema })), {
        minLength: 1,
        maxLength: 3,
      }),
      provider: opt(provider),
    }),
  ),
  responses: permuted(
    fc.record({
      model,
      instructions: system,
      input: fc.constant('hi'),
      text: permuted(
        fc.record({
          format: permuted(fc.record({ type: fc.constant('json_schema'), name: toolName, schema, strict: fc.boolean() })),
        }),
      ),
      tools: fc.array(permuted(fc.record({ type: fc.constant('function'), name: toolName, description: opt(words), parameters: schema })), {
        minLength: 1,
        maxLength: 3,
      }),
      reasoning: opt(permuted(fc.record({ summary: fc.constant('auto'), effort: fc.constantFrom('low', 'high') }))),
      provider: opt(provider),
    }),
  ),
};

/** What a version keeps of a body: its config fields, in the body's order. */
const configOf = (format: Format, body: Json): Json =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !NOT_CONFIG[format].includes(key)));

/** The JSON schemas a request of `format` carries (its output format's and its function tools'), as texts. */
const schemaTexts = (format: Format, request: Json): string[] => {
  const tools = (request.tools ?? []) as Json[];
  const found =
    format === 'chat_completions'
      ? [
          ((request.response_format as Json | undefined)?.json_schema as Json | undefined)?.schema,
          ...tools.map((t) => (t.function as Json).parameters),
        ]
      : format === 'messages'
        ? [((request.output_config as Json | undefined)?.format as Json | undefined)?.schema, ...tools.map((t) => t.input_schema)]
        : [((request.text as Json | undefined)?.format as Json | undefined)?.schema, ...tools.map((t) => t.parameters)];
  return found.filter((s) => s !== undefined).map((s) => JSON.stringify(s));
};

/** A request of `format` naming the preset, with nothing of its own that the preset configures. */
const naming = (format: Format, slug: string): Json =>
  format === 'chat_completions'
    ? { model: `@preset/${slug}`, messages: [{ role: 'user', content: 'hi' }] }
    : format === 'messages'
      ? { model: `@preset/${slug}`, messages: [{ role: 'user', content: 'hi' }] }
      : { model: `@preset/${slug}`, input: 'hi' };

interface Saved {
  slug: string;
  format: Format;
  config: Json;
  version: number;
}
const saved: Saved[] = [];
let receiver: Receiver;
const text = (value: unknown) => JSON.stringify(value);

const json = async (path: string, init: Parameters<typeof svc.request>[1] = {}) => {
  const res = await svc.request(path, init);
  const body = await res.json();
  expect({ path, status: res.status }).toEqual({ path, status: res.status < 300 ? res.status : 200 });
  return body;
};

/** Every path that gives a saved version back, its config's text against what was sent. */
const readsBack = async ({ slug, config, version }: Saved, asOf?: string) => {
  const expected = text(config);
  const query = asOf ? `?as_of=${encodeURIComponent(asOf)}` : '';
  const preset = await json(`/api/v1/presets/${slug}${query}`);
  expect(text(preset.data.designated_version.config)).toBe(expected);
  const versions = await json(`/api/v1/presets/${slug}/versions${query}`);
  expect(text(versions.data.find((v: Json) => v.version === version).config)).toBe(expected);
  const one = await json(`/api/v1/presets/${slug}/versions/${version}${query}`);
  expect(text(one.data.config)).toBe(expected);
};

/** Resolve over HTTP into each format: every value carried over keeps its inner order. */
const resolvesTo = async ({ slug, format, config }: Saved) => {
  const answers: Record<string, unknown> = {};
  for (const to of FORMATS) {
    const answer = await json(`/api/v1/resolve/${PATH[to]}`, { method: 'POST', json: naming(to, slug) });
    const request = answer.data.request as Json;
    expect(schemaTexts(to, request)).toEqual(schemaTexts(format, config));
    if (config.provider) expect(text(request.provider)).toBe(text(config.provider));
    if (to === format)
      for (const [key, value] of Object.entries(config))
        if (key !== 'max_tokens') expect({ key, value: text(request[key]) }).toEqual({ key, value: text(value) });
    answers[to] = answer.data;
  }
  return answers;
};

beforeAll(async () => {
  receiver = await startReceiver();
  expect((await svc.request('/api/v1/webhooks', { method: 'POST', json: { url: receiver.url } })).status).toBe(201);
});
afterAll(async () => receiver.close());

describe('a config comes back as it was sent, keys in their order at every depth', () => {
  it.each(FORMATS)(
    'saved from a %s body: the write, dry_run, the reads, as_of and resolve into every format (property)',
    async (format) => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(bodies[format], async (body) => {
          const slug = `order-${format.replace('_', '-')}-${n++}`;
          const config = configOf(format, body);
          const dry = await json(`/api/v1/presets/${slug}/${PATH[format]}?dry_run=true`, { method: 'POST', json: body });
          expect(text(dry.data.config)).toBe(text(config));
          const written = await json(`/api/v1/presets/${slug}/${PATH[format]}`, { method: 'POST', json: body });
          expect(text(written.data.designated_version.config)).toBe(text(config));
          const entry = { slug, format, config, version: written.data.designated_version.version as number };
          await readsBack(entry);
          await readsBack(entry, new Date(Date.now() + 1000).toISOString());
          await resolvesTo(entry);
          saved.push(entry);
        }),
        { numRuns: 12 },
      );
    },
  );

  it('the event feed, one preset’s events, SSE, webhooks, a consumer group and presets/client give the same texts', async () => {
    expect(saved).toHaveLength(3 * 12); // the presets the properties above saved
    const configs = new Map(saved.map((s) => [s.slug, text(s.config)]));
    const slugOf = (stream: string) => [...configs.keys()].find((slug) => stream.endsWith(`-${slug}`));
    const fromEvents = (events: Array<{ type: string; stream: string; data: Json }>) =>
      new Map(
        events
          .filter((e) => e.type === 'PresetCreated' && slugOf(e.stream))
          .map((e) => [slugOf(e.stream)!, text((e.data.version as Json).config)]),
      );

    const feed = await json('/api/v1/events?limit=1000');
    expect(fromEvents(feed.data)).toEqual(configs);
    for (const { slug } of saved.slice(0, 6)) {
      const own = await json(`/api/v1/presets/${slug}/events`);
      expect(fromEvents(own.data).get(slug)).toBe(configs.get(slug));
    }

    const sse = await openSse(`${svc.url}/api/v1/events?after=0`, { authorization: `Bearer ${KEYS.writer}` }, svc.fetch);
    const frames = await sse.events(feed.data.length, 10_000);
    sse.close();
    expect(fromEvents(frames.map((f) => JSON.parse(f.data!)))).toEqual(configs);

    await until(() => receiver.received.length >= feed.data.length, 30_000);
    expect(fromEvents(receiver.received.map((r) => JSON.parse(r.body)))).toEqual(configs);

    expect((await svc.request('/api/v1/consumer-groups/order', { method: 'PUT', json: { start: 'beginning' } })).status).toBe(201);
    const batch = await json('/api/v1/consumer-groups/order/fetch', { method: 'POST', json: { max: 1000 } });
    expect(fromEvents(batch.data)).toEqual(configs);

    const client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.writer, fetch: svc.fetch });
    try {
      for (const entry of saved.slice(0, 9)) {
        const over = await resolvesTo(entry);
        for (const to of FORMATS) expect(text(await client.resolve(to, naming(to, entry.slug)))).toBe(text(over[to]));
      }
    } finally {
      await client.close();
    }
  });

  it('a consumer group’s filter comes back as sent', async () => {
    const filter = { slug_prefix: 'order-', types: ['PresetVersionAdded', 'PresetCreated'] };
    const put = await json('/api/v1/consumer-groups/filtered', { method: 'PUT', json: { filter, start: 'now' } });
    expect(text(put.data.filter)).toBe(text(filter));
    expect(text((await json('/api/v1/consumer-groups/filtered')).data.filter)).toBe(text(filter));
  });

  it('the audit export carries the texts, and the offline verifier accepts it', async () => {
    const res = await svc.request('/api/v1/audit/export');
    expect(res.status).toBe(200);
    expect(saved).toHaveLength(3 * 12);
    const exported = await res.text();
    const lines = exported
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    const created = lines.filter((l) => l.type === 'PresetCreated');
    for (const { slug, config } of saved) {
      const line = created.find((l) => (l.stream as string).endsWith(`-${slug}`))!;
      expect(text(((line.data as Json).version as Json).config)).toBe(text(config));
    }
    const key = await json('/api/v1/audit/public-key');
    expect(await verifyOffline(exported, key.data.public_key_pem)).toMatch(/^VALID/);
  });

  it('the same texts after a restart', async () => {
    expect(saved).toHaveLength(3 * 12);
    await svc.restart();
    for (const entry of saved) {
      await readsBack(entry);
      await resolvesTo(entry);
    }
  });
});
