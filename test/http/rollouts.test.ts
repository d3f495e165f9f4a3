import fc from 'fast-check';
import { createPresetClient } from '#src/client';
import { presetStreamName } from '#src/presets/streamName';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_A } from '../support/service';

/**
 * Rollouts over HTTP: a label split between versions by weight (PUT /labels/{label} with "split"),
 * resolved per caller by a split key and reported as `served`, promoted or aborted by moving the
 * label, each change in the preset's history; and the usage counts of what was served, which
 * survive a restart. The service and `presets/client` pick the same version for the same key.
 */
const svc = useApiSpecification({ USAGE_FLUSH_MS: '60000' });

type Init = { key?: string; headers?: Record<string, string> };
const version = async (slug: string, prompt: string) => {
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, {
    method: 'POST',
    json: { model: 'openai/gpt-4o', messages: [{ role: 'system', content: prompt }] },
  });
  expect(res.status).toBe(200);
  return res;
};
const withVersions = async (slug: string, n: number) => {
  for (let i = 1; i <= n; i++) await version(slug, `v${i}`);
};
const putLabel = (slug: string, label: string, json: unknown, init: Init = {}) =>
  svc.request(`/api/v1/presets/${slug}/labels/${label}`, { method: 'PUT', json, ...init });
const get = async (slug: string) => (await (await svc.request(`/api/v1/presets/${slug}`)).json()).data;
const etag = async (slug: string) => (await svc.request(`/api/v1/presets/${slug}`)).headers.get('etag')!;
const streamLength = async (slug: string) => (await svc.eventStore.read(presetStreamName(WORKSPACE_A, slug))).length;
const history = async (slug: string) =>
  (await (await svc.request(`/api/v1/presets/${slug}/events?limit=1000`)).json()).data as Array<{
    type: string;
    data: Record<string, unknown>;
  }>;
const resolve = (path: string, json: unknown, headers: Record<string, string> = {}) =>
  svc.request(`/api/v1/resolve/${path}`, { method: 'POST', json, headers });
const canary = [
  { version: 1, weight: 95 },
  { version: 2, weight: 5 },
];

describe('PUT /api/v1/presets/{slug}/labels/{label} with a split', () => {
  it('splits the label (PresetLabelSplit with ids, weights and what it named), shown as {"split": [...]} in ascending version order', async () => {
    await withVersions('split-put', 3);
    expect((await putLabel('split-put', 'production', { version: 1 })).status).toBe(200);
    const res = await putLabel('split-put', 'production', {
      split: [
        { version: 2, weight: 5 },
        { version: 1, weight: 95 },
      ],
      note: 'canary',
    });
    expect(res.status).toBe(200);
    const preset = (await res.json()).data;
    expect(preset.labels).toEqual({ production: { split: canary } });
    expect(await get('split-put')).toMatchObject({ labels: { production: { split: canary } }, designated_version: { version: 3 } });
    const last = (await history('split-put')).at(-1)!;
    const versions = (await (await svc.request('/api/v1/presets/split-put/versions')).json()).data as Array<{ id: string }>;
    expect(last).toMatchObject({
      type: 'PresetLabelSplit',
      data: {
        label: 'production',
        versions: [
          { versionNumber: 1, versionId: versions[0]!.id, weight: 95 },
          { versionNumber: 2, versionId: versions[1]!.id, weight: 5 },
        ],
        previousVersionNumber: 1,
        previousVersions: null,
        note: 'canary',
      },
    });
    // The same split again, in another order, stores nothing.
    const before = await streamLength('split-put');
    expect((await putLabel('split-put', 'production', { split: [...canary].reverse() })).status).toBe(200);
    expect(await streamLength('split-put')).toBe(before);
  });

  it('refuses every malformed split with a 400 naming its JSON path, storing nothing', async () => {
    await withVersions('split-bad', 3);
    const before = await streamLength('split-bad');
    const cases: Array<[unknown, string]> = [
      [{ split: [{ version: 1, weight: 1 }] }, '$.split'],
      [{ split: Array.from({ length: 11 }, (_, i) => ({ version: i + 1, weight: 1 })) }, '$.split'],
      [{ split: [] }, '$.split'],
      [{ split: 'half' }, '$.split'],
      [
        {
          split: [
            { version: 1, weight: 0 },
            { version: 2, weight: 1 },
          ],
        },
        '$.split[0].weight',
      ],
      [
        {
          split: [
            { version: 1, weight: 1 },
            { version: 2, weight: 10_001 },
          ],
        },
        '$.split[1].weight',
      ],
      [
        {
          split: [
            { version: 1, weight: 1.5 },
            { version: 2, weight: 1 },
          ],
        },
        '$.split[0].weight',
      ],
      [
        {
          split: [
            { version: 0, weight: 1 },
            { version: 2, weight: 1 },
          ],
        },
        '$.split[0].version',
      ],
      [{ split: [{ version: 1, weight: 1 }, { weight: 1 }] }, '$.split[1].version'],
      [
        {
          split: [
            { version: 2, weight: 1 },
            { version: 3, weight: 1 },
            { version: 2, weight: 5 },
          ],
        },
        '$.split[2].version',
      ],
      [{ version: 1, split: canary }, '$'],
      [{ split: canary, note: 5 }, '$.note'],
    ];
    for (const [body, path] of cases) {
      const res = await putLabel('split-bad', 'production', body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      const error = (await res.json()).error;
      expect(error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    // A version the preset does not have: 404, as for a move.
    const missing = await putLabel('split-bad', 'production', {
      split: [
        { version: 1, weight: 1 },
        { version: 4, weight: 1 },
      ],
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toMatch(/no version 4/);
    expect(await streamLength('split-bad')).toBe(before);
  });

  it('honours If-Match (412 on a stale ETag, nothing stored)', async () => {
    await withVersions('split-etag', 2);
    const stale = await etag('split-etag');
    await version('split-etag', 'v3');
    const res = await putLabel('split-etag', 'production', { split: canary }, { headers: { 'If-Match': stale } });
    expect(res.status).toBe(412);
    expect((await get('split-etag')).labels).toEqual({});
    const fresh = await putLabel('split-etag', 'production', { split: canary }, { headers: { 'If-Match': await etag('split-etag') } });
    expect(fresh.status).toBe(200);
  });

  it('promotes (the label to one version) and aborts (back to the previous one), each ending the split in the history', async () => {
    await withVersions('split-promote', 2);
    await putLabel('split-promote', 'production', { version: 1 });
    await putLabel('split-promote', 'production', { split: canary });
    const promoted = await putLabel(
      'split-promote',
      'production',
      { version: 2, note: 'promote' },
      { headers: { 'If-Match': await etag('split-promote') } },
    );
    expect(promoted.status).toBe(200);
    expect((await promoted.json()).data.labels).toEqual({ production: 2 });
    await putLabel('split-promote', 'production', {
      split: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
    });
    const aborted = await putLabel('split-promote', 'production', { version: 1, note: 'abort' });
    expect((await aborted.json()).data.labels).toEqual({ production: 1 });
    const events = (await history('split-promote')).filter((e) => e.type.startsWith('PresetLabel'));
    expect(
      events.map((e) => [e.type, e.data.previousVersionNumber, (e.data.previousVersions as unknown[] | undefined)?.length ?? null]),
    ).toEqual([
      ['PresetLabelMoved', null, null],
      ['PresetLabelSplit', 1, null],
      ['PresetLabelMoved', null, 2],
      ['PresetLabelSplit', 2, null],
      ['PresetLabelMoved', null, 2],
    ]);
    expect(events[2]!.data).toMatchObject({
      versionNumber: 2,
      note: 'promote',
      previousVersions: [
        { versionNumber: 1, weight: 95 },
        { versionNumber: 2, weight: 5 },
      ],
    });
  });

  it('refuses removing a split label (409 label_split), and any split of an archived preset (409)', async () => {
    await withVersions('split-rules', 2);
    await putLabel('split-rules', 'production', { split: canary });
    const removed = await svc.request('/api/v1/presets/split-rules/labels/production', { method: 'DELETE' });
    expect(removed.status).toBe(409);
    expect((await removed.json()).error.metadata).toEqual({ reason: 'label_split' });
    expect((await svc.request('/api/v1/presets/split-rules', { method: 'DELETE' })).status).toBe(200);
    const archived = await putLabel('split-rules', 'staging', { split: canary });
    expect(archived.status).toBe(409);
    expect((await archived.json()).error.metadata).toEqual({ reason: 'preset_archived' });
    // Resolving it is refused as before.
    const used = await resolve('chat/completions', { model: '@preset/split-rules@production', messages: [] });
    expect(used.status).toBe(409);
    expect((await used.json()).error.metadata).toEqual({ reason: 'preset_archived' });
  });

  it('needs presets:write', async () => {
    const res = await putLabel('split-put', 'production', { split: canary }, { key: KEYS.readerOnly });
    expect(res.status).toBe(403);
  });
});

describe('resolving a split label', () => {
  beforeAll(async () => {
    await withVersions('rollout', 2);
    await putLabel('rollout', 'production', { version: 1 });
    await putLabel('rollout', 'production', {
      split: [
        { version: 1, weight: 1 },
        { version: 2, weight: 1 },
      ],
    });
  });
  const served = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await resolve(path, body, headers);
    expect(res.status).toBe(200);
    const data = (await res.json()).data;
    expect(data.served.version).toBe(data.preset.version);
    return data;
  };

  it('says which version was served and by which key, for each source in the three formats', async () => {
    const chat = (extra: Record<string, unknown>) => ({ model: '@preset/rollout@production', messages: [], ...extra });
    const messages = (extra: Record<string, unknown>) => ({
      model: 'anthropic/claude-sonnet-4@preset/rollout@production',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
      ...extra,
    });
    const responses = (extra: Record<string, unknown>) => ({ preset: 'rollout@production', input: 'hi', ...extra });
    const cases: Array<[string, unknown, Record<string, string>, string]> = [
      ['chat/completions', chat({ user: 'u1' }), { 'Preset-Split-Key': 'h1' }, 'header'],
      ['chat/completions', chat({ user: 'u1' }), {}, 'user'],
      ['chat/completions', chat({}), {}, 'random'],
      ['messages', messages({ metadata: { user_id: 'm1' } }), { 'Preset-Split-Key': 'h1' }, 'header'],
      ['messages', messages({ metadata: { user_id: 'm1' } }), {}, 'metadata.user_id'],
      ['messages', messages({}), {}, 'random'],
      ['responses', responses({ user: 'r1', safety_identifier: 's1' }), { 'Preset-Split-Key': 'h1' }, 'header'],
      ['responses', responses({ user: 'r1', safety_identifier: 's1' }), {}, 'user'],
      ['responses', responses({ safety_identifier: 's1' }), {}, 'safety_identifier'],
      ['responses', responses({}), {}, 'random'],
    ];
    for (const [path, body, headers, source] of cases) {
      const data = await served(path, body, headers);
      expect({ path, source, served: data.served }).toEqual({
        path,
        source,
        served: { version: expect.any(Number), label: 'production', split_key_source: source },
      });
      expect([1, 2]).toContain(data.served.version);
      expect(data.preset.label).toBe('production');
    }
  });

  it('picks by the key alone: the same key gets the same version whatever format carries it', async () => {
    for (let i = 0; i < 20; i++) {
      const key = `caller-${i}`;
      const a = await served('chat/completions', { model: '@preset/rollout@production', messages: [], user: key });
      const b = await served('messages', {
        model: 'x/y@preset/rollout@production',
        max_tokens: 5,
        messages: [],
        metadata: { user_id: key },
      });
      const c = await served('responses', { preset: 'rollout@production', input: 'x', safety_identifier: key });
      const d = await served('chat/completions', { model: '@preset/rollout@production', messages: [] }, { 'Preset-Split-Key': key });
      expect(new Set([a.served.version, b.served.version, c.served.version, d.served.version]).size).toBe(1);
    }
  });

  it('never splits the designated version, a version number or latest: no served there', async () => {
    for (const model of ['@preset/rollout', '@preset/rollout@1', '@preset/rollout@latest']) {
      const res = await resolve('chat/completions', { model, messages: [], user: 'u1' });
      expect(res.status).toBe(200);
      expect((await res.json()).data.served).toBeUndefined();
    }
  });

  it('is refused for a disabled preset, as any resolution', async () => {
    await withVersions('rollout-disabled', 2);
    await putLabel('rollout-disabled', 'production', { split: canary });
    expect((await svc.request('/api/v1/presets/rollout-disabled', { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
    const res = await resolve('chat/completions', { model: '@preset/rollout-disabled@production', messages: [] });
    expect(res.status).toBe(409);
    expect((await res.json()).error.metadata).toEqual({ reason: 'preset_disabled' });
  });

  it('picks the same version in presets/client as in the service, for any split and key', async () => {
    await withVersions('rollout-prop', 5);
    const client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.readerOnly, fetch: svc.fetch });
    try {
      await client.ready();
      let run = 0;
      const split = fc
        .uniqueArray(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 5 })
        .chain((vs) => fc.tuple(...vs.map((v) => fc.integer({ min: 1, max: 10_000 }).map((weight) => ({ version: v, weight })))));
      const key = fc.string({ minLength: 1, maxLength: 40 }).filter((k) => k.trim() === k && !/[\r\n\0]/.test(k));
      await fc.assert(
        fc.asyncProperty(split, fc.array(key, { minLength: 1, maxLength: 5 }), async (shares, keys) => {
          // A new label each run: once the client resolves it at all, it holds this very split (one event made it).
          const label = `canary-${++run}`;
          const body = { model: `@preset/rollout-prop@${label}`, messages: [] };
          expect((await putLabel('rollout-prop', label, { split: shares })).status).toBe(200);
          for (const deadline = Date.now() + 5000; ;) {
            const held = await client.resolve('chat_completions', body).then(
              () => true,
              () => false,
            );
            if (held) break;
            if (Date.now() > deadline) throw new Error(`the client did not get label ${label}`);
            await new Promise((r) => setTimeout(r, 10));
          }
          for (const k of keys) {
            const fromService = await served('chat/completions', body, { 'Preset-Split-Key': k });
            const fromClient = await client.resolve('chat_completions', body, { splitKey: k });
            expect(fromClient.served).toEqual(fromService.served);
            expect(fromClient.preset.version).toBe(fromService.preset.version);
          }
        }),
        { numRuns: 15 },
      );
    } finally {
      await client.close();
    }
  });
});

describe('GET /api/v1/presets/{slug}/usage', () => {
  it('sums the resolutions answered per hour, label and version, across a restart, with what presets/client reports', async () => {
    await withVersions('usage', 2);
    await putLabel('usage', 'production', { split: canary });
    const answered = new Map<string, number>();
    const note = (label: string | null, v: number) => answered.set(`${label}:${v}`, (answered.get(`${label}:${v}`) ?? 0) + 1);
    for (let i = 0; i < 60; i++) {
      const res = await resolve('chat/completions', { model: '@preset/usage@production', messages: [] }, { 'Preset-Split-Key': `k${i}` });
      note('production', (await res.json()).data.preset.version);
    }
    for (let i = 0; i < 7; i++) {
      await resolve('chat/completions', { model: '@preset/usage', messages: [] });
      note(null, 2);
    }
    // A resolution that fails is not counted.
    expect((await resolve('chat/completions', { model: '@preset/usage@9', messages: [] })).status).toBe(404);

    // Counts flush at shutdown (the flush interval is a minute here): a restart keeps them.
    await svc.restart({ USAGE_FLUSH_MS: '60000' });

    // presets/client counts its own resolutions and reports them.
    const client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.readerOnly, usage: {}, fetch: svc.fetch });
    for (let i = 0; i < 5; i++) {
      const r = await client.resolve('chat_completions', { model: '@preset/usage@production', messages: [] }, { splitKey: `c${i}` });
      note('production', r.preset.version);
    }
    await client.flushUsage();
    await client.close();

    const res = await svc.request('/api/v1/presets/usage/usage');
    expect(res.status).toBe(200);
    const { data } = await res.json();
    const totals = Object.fromEntries(
      (data.totals as Array<{ label: string | null; version: number; count: number }>).map((t) => [`${t.label}:${t.version}`, t.count]),
    );
    expect(totals).toEqual(Object.fromEntries(answered));
    const hourly = (data.hours as Array<{ count: number; hour: string }>).reduce((sum, h) => sum + h.count, 0);
    expect(hourly).toBe(60 + 7 + 5);
    for (const h of data.hours) expect(h.hour).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
    // Usage is not in the preset's history: counts are never events.
    expect((await history('usage')).map((e) => e.type)).toEqual(['PresetCreated', 'PresetVersionAdded', 'PresetLabelSplit']);
  });

  it('takes a window (from, to) and refuses a bad one with a 400 naming the parameter', async () => {
    const past = await svc.request('/api/v1/presets/usage/usage?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z');
    expect(past.status).toBe(200);
    expect((await past.json()).data).toEqual({ from: '2020-01-01T00:00:00.000Z', to: '2020-01-02T00:00:00.000Z', hours: [], totals: [] });
    const bad: Array<[string, string]> = [
      ['from=yesterday', 'from'],
      ['to=2026-13-01T00:00:00Z', 'to'],
      ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
      ['from=2025-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ];
    for (const [query, path] of bad) {
      const res = await svc.request(`/api/v1/presets/usage/usage?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await svc.request('/api/v1/presets/nothing-here/usage')).status).toBe(404);
    expect((await svc.request('/api/v1/presets/usage/usage', { key: KEYS.otherWorkspace })).status).toBe(404);
  });

  it('presets/client drops the counts the service refuses for good (a label removed since), and reports the rest', async () => {
    await withVersions('dropped', 1);
    await putLabel('dropped', 'gone', { version: 1 });
    const errors: unknown[] = [];
    const client = createPresetClient({
      baseUrl: svc.url,
      apiKey: KEYS.readerOnly,
      usage: {},
      fetch: svc.fetch,
      onError: (e) => errors.push(e),
    });
    try {
      for (let i = 0; i < 2; i++) await client.resolve('chat_completions', { model: '@preset/dropped@gone', messages: [] });
      for (let i = 0; i < 3; i++) await client.resolve('chat_completions', { model: '@preset/dropped', messages: [] });
      expect((await svc.request('/api/v1/presets/dropped/labels/gone', { method: 'DELETE' })).status).toBe(200);
      await client.flushUsage();
      expect(errors).toEqual([expect.objectContaining({ status: 400, message: expect.stringContaining('no label "gone"') })]);
      // Dropped, not kept for the next flush: that one sends nothing and fails nothing.
      await client.flushUsage();
      expect(errors).toHaveLength(1);
    } finally {
      await client.close();
    }
    const { data } = await (await svc.request('/api/v1/presets/dropped/usage')).json();
    expect(data.totals).toEqual([{ label: null, version: 1, count: 3 }]);
  });

  it('refuses a usage report naming what cannot be counted, counting nothing of it', async () => {
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const before = (await (await svc.request('/api/v1/presets/usage/usage')).json()).data.totals;
    const report = (counts: unknown[]) => svc.request('/api/v1/usage', { method: 'POST', json: { counts } });
    const good = { slug: 'usage', label: 'production', version: 1, hour, count: 3 };
    const cases: Array<[unknown[], string]> = [
      [[good, { ...good, slug: 'nothing-here' }], '$.counts[1].slug'],
      [[{ ...good, count: 0 }], '$.counts[0].count'],
      [[{ ...good, hour: '2026-01-01T10:30:00.000Z' }], '$.counts[0].hour'],
      [[{ ...good, hour: '2999-01-01T00:00:00.000Z' }], '$.counts[0].hour'],
      [[{ ...good, label: 'Not A Label' }], '$.counts[0].label'],
      [[{ ...good, version: 0 }], '$.counts[0].version'],
    ];
    for (const [counts, path] of cases) {
      const res = await report(counts);
      expect({ counts, status: res.status }).toEqual({ counts, status: 400 });
      expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await (await svc.request('/api/v1/presets/usage/usage')).json()).data.totals).toEqual(before);
  });
});
