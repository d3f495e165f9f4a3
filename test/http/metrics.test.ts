import { startApiSpecification, useApiSpecification, type ApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';
import { scrape, type Scrape } from '../support/prometheus';
import { openSse } from '../support/sse';
import { startReceiver, type Receiver } from '../support/receiver';
import { eventually, webhookHelpers } from '../support/webhooks';

/**
 * GET /metrics as Prometheus reads it: the scrape is parsed by a text-format parser that is not
 * ours, and each figure is checked to move as the requests made here say it must.
 */

const create = (
  svc: ApiSpecification,
  slug: string,
  body: unknown = chatBody(),
  init: { key?: string; headers?: Record<string, string> } = {},
) => svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: body, ...init });

describe('GET /metrics', () => {
  const svc = useApiSpecification();

  it('answers the Prometheus text format without an API key, with the Node default metrics', async () => {
    const res = await svc.fetch(svc.metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(s.families.has(name)).toBe(true);
    expect(svc.metricsUrl).toBe(`${svc.url}/metrics`);
  });

  it('counts requests by route template, method and status class, and times them', async () => {
    const before = await scrape(svc.metricsUrl, undefined, svc.fetch);
    const labels = { route: '/api/v1/presets', method: 'GET', status_class: '2xx' };
    for (let i = 0; i < 3; i++) expect((await svc.request('/api/v1/presets')).status).toBe(200);
    expect((await svc.request('/api/v1/presets/no-such-preset')).status).toBe(404);
    const after = await scrape(svc.metricsUrl, undefined, svc.fetch);
    expect(after.value('presets_http_requests_total', labels) - before.value('presets_http_requests_total', labels)).toBe(3);
    expect(
      after.count('presets_http_request_duration_seconds', labels) - before.count('presets_http_request_duration_seconds', labels),
    ).toBe(3);
    const notFound = { route: '/api/v1/presets/:slug', method: 'GET', status_class: '4xx' };
    expect(after.value('presets_http_requests_total', notFound) - before.value('presets_http_requests_total', notFound)).toBe(1);
  });

  it('counts appends by event type, resolutions by format and outcome', async () => {
    const before = await scrape(svc.metricsUrl, undefined, svc.fetch);
    expect((await create(svc, 'counted')).status).toBe(200);
    expect((await create(svc, 'counted', chatBody({ temperature: 0.9 }))).status).toBe(200);
    const resolved = await svc.request('/api/v1/resolve/chat/completions', {
      method: 'POST',
      json: { model: '@preset/counted', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(resolved.status).toBe(200);
    const missing = await svc.request('/api/v1/resolve/chat/completions', {
      method: 'POST',
      json: { model: '@preset/nowhere', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(missing.status).toBe(404);
    const after = await scrape(svc.metricsUrl, undefined, svc.fetch);
    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    // As many of each type as the preset's own history holds.
    const stored = (await (await svc.request('/api/v1/presets/counted/events')).json()).data as { type: string }[];
    expect(stored.length).toBeGreaterThanOrEqual(2);
    for (const type of new Set(stored.map((e) => e.type)))
      expect(delta('presets_events_appended_total', { type })).toBe(stored.filter((e) => e.type === type).length);
    expect(after.count('presets_append_duration_seconds') - before.count('presets_append_duration_seconds')).toBe(2);
    expect(delta('presets_resolutions_total', { format: 'chat_completions', outcome: 'resolved' })).toBe(1);
    expect(delta('presets_resolutions_total', { format: 'chat_completions', outcome: '4xx' })).toBe(1);
    // Each answered write waited for the read model to show it.
    expect(delta('presets_read_your_writes_waits_total', {})).toBe(2);
    expect(delta('presets_read_your_writes_timeouts_total', {})).toBe(0);
  });

  it('shows the consumer groups and their lag, without their names', async () => {
    const before = await scrape(svc.metricsUrl, undefined, svc.fetch);
    const group = await svc.request('/api/v1/consumer-groups/metrics-probe-group', { method: 'PUT', json: { start: 'now' } });
    expect(group.status).toBe(201);
    expect((await create(svc, 'lagging-for-groups')).status).toBe(200);
    const after = await scrape(svc.metricsUrl, undefined, svc.fetch);
    expect(after.value('presets_consumer_groups') - before.value('presets_consumer_groups')).toBe(1);
    const listed = (await (await svc.request('/api/v1/consumer-groups')).json()).data as { lag: number }[];
    expect(after.value('presets_consumer_group_lag_events')).toBe(listed.reduce((sum, g) => sum + g.lag, 0));
    expect(after.value('presets_consumer_group_max_lag_events')).toBe(Math.max(...listed.map((g) => g.lag)));
    expect(after.value('presets_consumer_group_max_lag_events')).toBeGreaterThanOrEqual(1);
    expect(after.text).not.toContain('metrics-probe-group');
  });

  it('counts a write refused for a stale If-Match as a concurrency conflict', async () => {
    expect((await create(svc, 'contested')).status).toBe(200);
    const etag = (await svc.request('/api/v1/presets/contested')).headers.get('etag')!;
    expect((await create(svc, 'contested', chatBody({ temperature: 0.5 }))).status).toBe(200);
    const before = await scrape(svc.metricsUrl, undefined, svc.fetch);
    const stale = await create(svc, 'contested', chatBody({ temperature: 0.7 }), { headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    const after = await scrape(svc.metricsUrl, undefined, svc.fetch);
    expect(
      after.value('presets_concurrency_conflicts_total', { kind: 'if_match' }) -
        before.value('presets_concurrency_conflicts_total', { kind: 'if_match' }),
    ).toBe(1);
  });

  it('shows the server-sent event streams open now', async () => {
    const stream = await openSse(`${svc.url}/api/v1/events`, { authorization: `Bearer ${KEYS.writer}` }, svc.fetch);
    expect((await scrape(svc.metricsUrl, undefined, svc.fetch)).value('presets_sse_connections_open')).toBe(1);
    stream.close();
    let open = 1;
    for (let i = 0; i < 100 && open !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      open = (await scrape(svc.metricsUrl, undefined, svc.fetch)).value('presets_sse_connections_open');
    }
    expect(open).toBe(0);
  });

  it('never puts a slug, a key, a user or a workspace in a label value', async () => {
    const slugs = ['Zq7.unusual~slug_x', 'zz-9.9~metric-probe', 'UPPER.lower~tilde'];
    for (const slug of slugs) expect((await create(svc, slug)).status).toBe(200);
    for (const slug of slugs) {
      expect((await svc.request(`/api/v1/presets/${slug}`)).status).toBe(200);
      expect((await svc.request(`/api/v1/presets/${slug}/versions`)).status).toBe(200);
    }
    expect((await svc.request('/api/v1/Zq7.unusual~slug_x/nowhere')).status).toBe(404);
    expect((await svc.request('/api/v1/presets', { key: 'pk_not_a_key_zz-9' })).status).toBe(401);
    const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
    const forbidden = [...slugs, 'zz-9', 'Zq7', KEYS.writer, 'pk_not_a_key', 'user-writer', WORKSPACE_A];
    const values = [...s.families.values()].flatMap((f) => f.metrics.flatMap((m) => Object.values(m.labels ?? {})));
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) for (const word of forbidden) expect(value).not.toContain(word);
    // Requests refused before any route matched are counted under one label, not their path.
    expect(s.value('presets_http_requests_total', { route: '(none)', status_class: '4xx' })).toBeGreaterThanOrEqual(2);
  });
});

describe('the projector in the metrics', () => {
  it('shows the lag rising while no projector runs, and falling to 0 once one catches up', async () => {
    let svc = await startApiSpecification({ PROJECTOR: 'off', READ_YOUR_WRITES_TIMEOUT_MS: '50' });
    try {
      for (const slug of ['lag-a', 'lag-b', 'lag-c']) expect((await create(svc, slug)).status).toBe(202);
      await new Promise((r) => setTimeout(r, 30));
      const paused = await scrape(svc.metricsUrl, undefined, svc.fetch);
      expect(paused.value('presets_projector_lag_events')).toBe(3);
      expect(paused.value('presets_projector_lag_seconds')).toBeGreaterThan(0.02);
      expect(paused.value('presets_projector_position')).toBe(-1);
      expect(paused.value('presets_log_head_position')).toBeGreaterThan(0);
      expect(paused.value('presets_read_your_writes_timeouts_total')).toBe(3);

      svc = await svc.restart({ PROJECTOR: 'on' });
      let s: Scrape = await scrape(svc.metricsUrl, undefined, svc.fetch);
      for (let i = 0; i < 200 && s.value('presets_projector_lag_events') !== 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        s = await scrape(svc.metricsUrl, undefined, svc.fetch);
      }
      expect(s.value('presets_projector_lag_events')).toBe(0);
      expect(s.value('presets_projector_lag_seconds')).toBe(0);
      expect(s.value('presets_projector_position')).toBe(s.value('presets_log_head_position'));
    } finally {
      await svc.close();
    }
  });
});

describe('METRICS_PORT, METRICS_TOKEN and RATE_LIMIT_PER_MINUTE', () => {
  const TOKEN = 'scrape-token-0123456789abcdef';
  // Served: the API on a loopback port of its own, beside the metrics server's (memory stores still).
  const svc = useApiSpecification({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN, RATE_LIMIT_PER_MINUTE: '2' }, { served: true });

  it('serves /metrics on its own port, not on the API port', async () => {
    expect(new URL(svc.metricsUrl).port).not.toBe(new URL(svc.url).port);
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(401); // the API asks for a key: no route there
    expect((await fetch(new URL('/', svc.metricsUrl))).status).toBe(404);
  });

  it('asks for the token, in the error envelope', async () => {
    const none = await fetch(svc.metricsUrl);
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe(401);
    expect((await fetch(svc.metricsUrl, { headers: { authorization: 'Bearer scrape-token-0123456789abcdeX' } })).status).toBe(401);
    expect((await fetch(svc.metricsUrl, { headers: { authorization: `Bearer ${KEYS.writer}` } })).status).toBe(401);
    expect((await fetch(svc.metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('counts the requests refused by the rate limit', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await svc.request('/api/v1/presets')).status);
    expect(answers).toEqual([200, 200, 429, 429]);
    expect((await scrape(svc.metricsUrl, TOKEN, svc.fetch)).value('presets_rate_limited_total')).toBe(2);
  });
});

describe('METRICS_TOKEN in the configuration', () => {
  it('refuses a token shorter than 16 characters at start', async () => {
    await expect(startApiSpecification({ METRICS_TOKEN: 'short' })).rejects.toThrow(/METRICS_TOKEN must be at least 16 characters/);
  });
});

describe('webhooks in the metrics', () => {
  const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '50' });
  let receiver: Receiver;
  const hooks = webhookHelpers(() => svc);
  beforeAll(async () => {
    // The 1st and 2nd requests fail (503), then deliveries succeed (the test makes it answer 410 later).
    receiver = await startReceiver((n) => (n <= 2 ? 503 : 204));
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('counts attempts by outcome, times deliveries from the append, and shows the backlog and disabled webhooks', async () => {
    const paused = await hooks.createHook({ url: receiver.url });
    expect((await hooks.patchHook(paused.id, { status: 'paused' })).status).toBe(200);
    await hooks.createHook({ url: receiver.url });
    const before = await scrape(svc.metricsUrl, undefined, svc.fetch);
    for (const slug of ['hooked-a', 'hooked-b', 'hooked-c']) await hooks.write(slug);
    await receiver.until((r) => r.filter((x) => x.answered === 204).length >= 3);
    // A delivery's progress is saved within a few milliseconds of its 2xx, not before the next
    // send (docs/webhooks.md): the backlog, read from the saved positions, follows the count.
    const after = await eventually(async () => {
      const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
      const delivered = s.value('presets_webhook_attempts_total', { outcome: 'delivered' }) >= 3;
      return delivered && s.value('presets_webhook_backlog_events') === 0 ? s : undefined;
    }, 'three deliveries counted and their progress saved');
    const delta = (outcome: string) =>
      after.value('presets_webhook_attempts_total', { outcome }) - before.value('presets_webhook_attempts_total', { outcome });
    expect(delta('delivered')).toBe(3);
    expect(delta('failed')).toBe(2);
    expect(after.count('presets_webhook_delivery_lag_seconds') - before.count('presets_webhook_delivery_lag_seconds')).toBe(3);
    expect(after.value('presets_webhook_backlog_events')).toBe(0);

    // A paused webhook holds its workspace's events until it resumes: its backlog, made active with the receiver down.
    await receiver.down();
    expect((await hooks.patchHook(paused.id, { status: 'active' })).status).toBe(200);
    await hooks.write('hooked-d');
    const backlog = await eventually(async () => {
      const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
      return s.value('presets_webhook_backlog_events') >= 5 ? s : undefined;
    }, 'the backlog of both webhooks');
    // The resumed webhook has the four events; the other one the newest.
    expect(backlog.value('presets_webhook_backlog_events')).toBe(5);
    const errors = await eventually(async () => {
      const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
      return s.value('presets_webhook_attempts_total', { outcome: 'error' }) > 0 ? s : undefined;
    }, 'an attempt with no answer');
    expect(errors.value('presets_webhook_attempts_total', { outcome: 'error' })).toBeGreaterThan(0);
    await receiver.up();

    expect(after.value('presets_webhooks_disabled')).toBe(0);
    receiver.behave(() => 410);
    await hooks.write('hooked-e');
    const disabled = await eventually(async () => {
      const s = await scrape(svc.metricsUrl, undefined, svc.fetch);
      return s.value('presets_webhooks_disabled') === 2 ? s : undefined;
    }, 'both webhooks disabled by a 410');
    expect(disabled.value('presets_webhooks_disabled')).toBe(2);
  });
});
