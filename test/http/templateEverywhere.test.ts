import fc from 'fast-check';
import { createPresetClient } from '#src/client';
import { startReceiver, type Receiver } from '../support/receiver';
import { until } from '../support/until';
import { useApiSpecification } from '../support/apiSpecification';
import { verifyOffline } from '../support/offlineVerifier';
import { KEYS } from '../support/service';

/**
 * A templated version travels like any version (issue 56): its template fields are in its events
 * (PresetCreated, PresetVersionAdded: the feed, one preset's events, webhooks, the audit export the
 * offline verifier accepts), in every read and an `as_of` read, in presets/client's copy, across a
 * restart; and its variables schema keeps the key order it was sent in through all of them (schemas
 * generated with keys in random orders). Through the embedded store's files and a rebuild, live and
 * in worker threads, text for text: test/e2e/rebuild.test.ts (the shared history holds a templated preset).
 */
jest.setTimeout(240_000);

const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '100' });
type Json = Record<string, unknown>;
const text = (value: unknown) => JSON.stringify(value);

const permuted = <T extends Json>(arb: fc.Arbitrary<T>): fc.Arbitrary<Json> =>
  arb.chain((o) => {
    const entries = Object.entries(o).filter(([, v]) => v !== undefined);
    return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length }).map((e) => Object.fromEntries(e));
  });
const property = permuted(
  fc.record({
    type: fc.constantFrom('string', 'number', 'boolean'),
    description: fc.option(fc.constantFrom('The reply’s language', 'Whose customers'), { nil: undefined }),
    title: fc.option(fc.constantFrom('A', 'B'), { nil: undefined }),
  }),
);
const schema = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z_]{0,7}$/), { minLength: 1, maxLength: 5 }).chain((names) =>
  fc.tuple(fc.constant(names), fc.tuple(...names.map(() => property)), fc.shuffledSubarray(names)).chain(([n, props, required]) =>
    permuted(
      fc.record({
        type: fc.constant('object'),
        properties: permuted(fc.constant(Object.fromEntries(n.map((name, i) => [name, props[i]!])))),
        required: fc.constant(required),
        description: fc.option(fc.constant('Inputs'), { nil: undefined }),
      }),
    ),
  ),
);

interface Saved {
  slug: string;
  fields: { template_format: string; variables: Json; messages: Json[]; system_prompt: string };
}
const saved: Saved[] = [];
let receiver: Receiver;

const json = async (path: string) => {
  const res = await svc.request(path);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return res.json();
};
/** The template fields of a version as an answer shows them, as text (key order included). */
const fieldsText = (v: Json) =>
  text({ template_format: v.template_format, variables: v.variables, messages: v.messages, system_prompt: v.system_prompt });
const eventFieldsText = (version: Json) =>
  text({
    template_format: version.templateFormat,
    variables: version.variables,
    messages: version.messages,
    system_prompt: version.systemPrompt,
  });

const readsBack = async ({ slug, fields }: Saved, asOf?: string) => {
  const query = asOf ? `?as_of=${encodeURIComponent(asOf)}` : '';
  const expected = text(fields);
  expect(fieldsText((await json(`/api/v1/presets/${slug}${query}`)).data.designated_version)).toBe(expected);
  expect(fieldsText((await json(`/api/v1/presets/${slug}/versions${query}`)).data[0])).toBe(expected);
  expect(fieldsText((await json(`/api/v1/presets/${slug}/versions/1${query}`)).data)).toBe(expected);
};

beforeAll(async () => {
  receiver = await startReceiver();
  expect((await svc.request('/api/v1/webhooks', { method: 'POST', json: { url: receiver.url } })).status).toBe(201);
});
afterAll(async () => receiver.close());

describe('a templated version’s fields, everywhere a version goes', () => {
  it('come back as sent from the write, the reads and as_of, the schema’s keys in their order (property)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(schema, async (variables) => {
        const names = Object.keys(variables.properties as Json);
        const slug = `everywhere-${n++}`;
        const fields = {
          template_format: 'handlebars',
          variables,
          messages: [{ role: 'user', content: names.map((name) => `{{${name}}}`).join(' ') }],
          system_prompt: `Use ${names.map((name) => `{{#if ${name}}}{{${name}}}{{/if}}`).join(',')}.`,
        };
        const res = await svc.request(`/api/v1/presets/${slug}/versions`, {
          method: 'POST',
          json: { format: 'chat_completions', config: { model: 'openai/gpt-4o' }, ...fields },
        });
        expect(res.status).toBe(200);
        expect(fieldsText((await res.json()).data.designated_version)).toBe(text(fields));
        const entry = { slug, fields };
        await readsBack(entry);
        await readsBack(entry, new Date(Date.now() + 1000).toISOString());
        saved.push(entry);
      }),
      { numRuns: 12 },
    );
  });

  it('are in the events: the feed, a preset’s events, webhooks and presets/client’s copy', async () => {
    const expected = new Map(saved.map((s) => [s.slug, text(s.fields)]));
    const slugOf = (stream: string) => saved.find((s) => stream.endsWith(`-${s.slug}`))?.slug;
    const fromEvents = (events: Array<{ type: string; stream: string; data: Json }>) =>
      new Map(
        events
          .filter((e) => e.type === 'PresetCreated' && slugOf(e.stream))
          .map((e) => [slugOf(e.stream)!, eventFieldsText(e.data.version as Json)]),
      );
    const feed = await json('/api/v1/events?limit=1000');
    expect(fromEvents(feed.data)).toEqual(expected);
    expect(fromEvents((await json(`/api/v1/presets/${saved[0]!.slug}/events`)).data).get(saved[0]!.slug)).toBe(
      expected.get(saved[0]!.slug),
    );
    await until(() => receiver.received.length >= feed.data.length, 30_000);
    expect(fromEvents(receiver.received.map((r) => JSON.parse(r.body)))).toEqual(expected);

    const client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.readerOnly, fetch: svc.fetch });
    try {
      for (const { slug, fields } of saved) {
        const properties = fields.variables.properties as Record<string, { type: string }>;
        const names = Object.keys(properties);
        const valueOf = (type: string) => (type === 'number' ? 1.5 : type === 'boolean' ? true : 'v');
        const variables = Object.fromEntries(names.map((name) => [name, valueOf(properties[name]!.type)]));
        const body = { model: `@preset/${slug}`, messages: [], prompt_variables: variables };
        const inProcess = await client.resolve('chat_completions', body);
        const res = await svc.request('/api/v1/resolve/chat/completions', { method: 'POST', json: body });
        expect(text(inProcess)).toBe(text((await res.json()).data));
        const shown = names.map((name) => String(variables[name]));
        expect(inProcess.request.messages).toEqual([
          { role: 'system', content: `Use ${shown.join(',')}.` },
          { role: 'user', content: shown.join(' ') },
        ]);
      }
    } finally {
      await client.close();
    }
  });

  it('are in the audit export, which the offline verifier accepts', async () => {
    const res = await svc.request('/api/v1/audit/export');
    expect(res.status).toBe(200);
    const exported = await res.text();
    const created = exported
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json)
      .filter((l) => l.type === 'PresetCreated');
    for (const { slug, fields } of saved) {
      const line = created.find((l) => (l.stream as string).endsWith(`-${slug}`))!;
      expect(eventFieldsText((line.data as Json).version as Json)).toBe(text(fields));
    }
    const key = await json('/api/v1/audit/public-key');
    expect(await verifyOffline(exported, key.data.public_key_pem)).toMatch(/^VALID/);
  });

  it('survive a restart', async () => {
    await svc.restart();
    for (const entry of saved) await readsBack(entry);
  });
});
