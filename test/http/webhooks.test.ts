import { randomUUID } from 'node:crypto';
import { useApiSpecification, startApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';
import { startReceiver } from '../support/receiver';
import { eventually, webhookHelpers } from '../support/webhooks';

/** The webhooks API: registration, its validation and address rules, scopes, reads without secrets, paging. */
jest.setTimeout(60_000);

describe('webhooks API (private networks allowed)', () => {
  const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '50' });
  const { createHook, getHook, patchHook, write, deleteAll } = webhookHelpers(() => svc);
  afterEach(async () => deleteAll());

  it('registers a webhook: 201 with Location, the secret once, every event type by default, starting after the last event', async () => {
    await write('before-the-hook');
    const res = await svc.request('/api/v1/webhooks', {
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/hook', description: 'cache busting' },
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(res.headers.get('location')).toBe(`/api/v1/webhooks/${data.id}`);
    const [last] = (await (await svc.request('/api/v1/events?limit=1000')).json()).data.slice(-1);
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'http://127.0.0.1:9/hook',
      events: null,
      description: 'cache busting',
      status: 'active',
      status_reason: null,
      failing_since: null,
      checkpoint: last.position,
      created_at: expect.any(String),
      updated_at: data.created_at,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    // Never again: not in a read, a list or a change.
    const { secret, ...shown } = data;
    const get = await svc.request(`/api/v1/webhooks/${data.id}`);
    const getText = await get.text();
    expect(JSON.parse(getText).data).toEqual(shown);
    const list = await (await svc.request('/api/v1/webhooks')).text();
    const patched = await (await patchHook(data.id, { description: 'x' })).text();
    const rotated = await (await svc.request(`/api/v1/webhooks/${data.id}/rotate-secret`, { method: 'POST' })).json();
    const afterRotation = await (await svc.request(`/api/v1/webhooks/${data.id}`)).text();
    for (const text of [getText, list, patched, afterRotation]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(rotated.data.secret);
      expect(text).not.toMatch(/whsec_/);
    }
  });

  it("lists the workspace's webhooks, oldest first, with a count", async () => {
    const a = await createHook({ url: 'http://127.0.0.1:9/a', events: ['PresetCreated'] });
    const b = await createHook({ url: 'http://127.0.0.1:9/b' });
    const list = await (await svc.request('/api/v1/webhooks')).json();
    expect(list.total_count).toBe(2);
    expect(list.data.map((h: { id: string; events: unknown }) => [h.id, h.events])).toEqual([
      [a.id, ['PresetCreated']],
      [b.id, null],
    ]);
  });

  it('changes url, events, description and status; a PATCH that changes nothing leaves updated_at', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const res = await patchHook(hook.id, {
      url: 'http://127.0.0.1:9/b',
      events: ['PresetVersionAdded', 'PresetVersionAdded'],
      description: 'd',
      status: 'paused',
    });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ url: 'http://127.0.0.1:9/b', events: ['PresetVersionAdded'], description: 'd', status: 'paused' });
    expect(Date.parse(data.updated_at)).toBeGreaterThanOrEqual(Date.parse(data.created_at));
    const same = await (await patchHook(hook.id, { description: 'd' })).json();
    expect(same.data).toEqual(data);
    const back = await (await patchHook(hook.id, { events: null, description: null, status: 'active' })).json();
    expect(back.data).toMatchObject({ events: null, description: null, status: 'active' });
    expect(await getHook(hook.id)).toEqual(back.data);
  });

  it.each([
    ['no url', {}, '$.url'],
    ['a url that is not a string', { url: 42 }, '$.url'],
    ['a url that is not http(s)', { url: 'ftp://example.com/' }, '$.url'],
    ['a url with a password', { url: 'https://u:p@example.com/' }, '$.url'],
    ['an unknown event type', { url: 'http://127.0.0.1:9/', events: ['PresetDeleted'] }, '$.events[0]'],
    ['an empty event list', { url: 'http://127.0.0.1:9/', events: [] }, '$.events'],
    ['a description over 2000 characters', { url: 'http://127.0.0.1:9/', description: 'x'.repeat(2001) }, '$.description'],
    ['an unknown field', { url: 'http://127.0.0.1:9/', secret: 'whsec_mine' }, '$.secret'],
    ['a status on creation', { url: 'http://127.0.0.1:9/', status: 'paused' }, '$.status'],
  ])('refuses a registration with %s (400, nothing stored)', async (_what, json, path) => {
    const res = await svc.request('/api/v1/webhooks', { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe(400);
    expect(body.error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect((await (await svc.request('/api/v1/webhooks')).json()).total_count).toBe(0);
  });

  it.each([
    ['status disabled (only the service disables)', { status: 'disabled' }, '$.status'],
    ['an unknown field', { secret: 'x' }, '$.secret'],
    ['a bad url', { url: 'not a url' }, '$.url'],
    ['an empty event list', { events: [] }, '$.events'],
  ])('refuses a PATCH with %s and changes nothing', async (_what, json, path) => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const before = await getHook(hook.id);
    const res = await patchHook(hook.id, json);
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await getHook(hook.id)).toEqual(before);
  });

  it('answers 404 for an unknown or malformed id, and 204 then 404 for a deletion', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await svc.request(`/api/v1/webhooks/${id}`);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ code: 404, message: expect.stringContaining('no webhook') });
    }
    const del = await svc.request(`/api/v1/webhooks/${hook.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await svc.request(`/api/v1/webhooks/${hook.id}`)).status).toBe(404);
    expect((await svc.request(`/api/v1/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('needs webhooks:manage for every call (403), and a key (401)', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const calls = [
      ['POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/x' }],
      ['GET', '/api/v1/webhooks'],
      ['GET', `/api/v1/webhooks/${hook.id}`],
      ['PATCH', `/api/v1/webhooks/${hook.id}`, { status: 'paused' }],
      ['DELETE', `/api/v1/webhooks/${hook.id}`],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${hook.id}/replay`, { after: '0' }],
      ['POST', `/api/v1/webhooks/${hook.id}/rotate-secret`],
    ] as const;
    for (const [method, path, json] of calls) {
      for (const key of [KEYS.readerOnly, KEYS.writerOnly]) {
        const res = await svc.request(path, { method, json, key });
        expect([method, path, res.status]).toEqual([method, path, 403]);
        expect((await res.json()).error.metadata).toEqual({ required_scope: 'webhooks:manage' });
      }
      expect((await svc.request(path, { method, json, key: null })).status).toBe(401);
    }
    expect(await getHook(hook.id)).toMatchObject({ status: 'active' });
  });

  it('needs presets:read as well to register, change, replay or rotate a webhook: deliveries carry preset content', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const needsRead = [
      ['POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/x' }],
      ['PATCH', `/api/v1/webhooks/${hook.id}`, { url: 'http://127.0.0.1:9/y' }],
      ['POST', `/api/v1/webhooks/${hook.id}/replay`, { after: '0' }],
      ['POST', `/api/v1/webhooks/${hook.id}/rotate-secret`],
    ] as const;
    for (const [method, path, json] of needsRead) {
      const res = await svc.request(path, { method, json, key: KEYS.webhooksOnly });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      const { error } = await res.json();
      expect(error.metadata).toEqual({ required_scope: 'presets:read' });
      expect(error.message).toMatch(/presets:read/);
    }
    // Nothing changed: same URL, same checkpoint, one webhook.
    expect(await getHook(hook.id)).toMatchObject({ url: 'http://127.0.0.1:9/a', checkpoint: hook.checkpoint });
    expect((await (await svc.request('/api/v1/webhooks', { key: KEYS.webhooksOnly })).json()).data).toHaveLength(1);
    // Reading, pausing and deleting carry no preset content: webhooks:manage is enough.
    expect((await svc.request(`/api/v1/webhooks/${hook.id}/deliveries`, { key: KEYS.webhooksOnly })).status).toBe(200);
    expect((await svc.request(`/api/v1/webhooks/${hook.id}`, { method: 'DELETE', key: KEYS.webhooksOnly })).status).toBe(204);
  });

  it('pages the delivery attempts newest first with limit and before', async () => {
    const r = await startReceiver((n) => (n <= 6 ? 503 : 204));
    try {
      const hook = await createHook({ url: r.url });
      await write('paging');
      await r.until(() => r.acknowledged().length === 1);
      const all = await eventually(async () => {
        const page = await (await svc.request(`/api/v1/webhooks/${hook.id}/deliveries?limit=100`)).json();
        return page.data.length === 7 ? page : undefined;
      }, 'seven attempts recorded');
      expect(all.next_before).toBeNull();
      expect(all.data.map((d: { attempt: number }) => d.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(all.data[0]).toMatchObject({
        outcome: 'succeeded',
        http_status: 204,
        error: null,
        next_retry_at: null,
        event_type: 'PresetCreated',
        latency_ms: expect.any(Number),
      });
      expect(all.data[1]).toMatchObject({ outcome: 'failed', http_status: 503, next_retry_at: expect.any(String) });
      const first = await (await svc.request(`/api/v1/webhooks/${hook.id}/deliveries?limit=3`)).json();
      expect(first.data).toEqual(all.data.slice(0, 3));
      const second = await (await svc.request(`/api/v1/webhooks/${hook.id}/deliveries?limit=3&before=${first.next_before}`)).json();
      expect(second.data).toEqual(all.data.slice(3, 6));
      const third = await (await svc.request(`/api/v1/webhooks/${hook.id}/deliveries?limit=3&before=${second.next_before}`)).json();
      expect(third).toEqual({ data: all.data.slice(6), next_before: null });
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'before=%20', 'before=abc-def']) {
        const res = await svc.request(`/api/v1/webhooks/${hook.id}/deliveries?${query}`);
        expect([query, res.status]).toEqual([query, 400]);
      }
    } finally {
      await r.close();
    }
  });

  it.each([[{}], [{ after: 5 }], [{ after: '-1' }], [{ after: '12', from: '3' }]])('refuses a replay body %j (400)', async (json) => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/a' });
    const res = await svc.request(`/api/v1/webhooks/${hook.id}/replay`, { method: 'POST', json });
    expect(res.status).toBe(400);
    expect((await getHook(hook.id)).checkpoint).toBe(hook.checkpoint);
  });

  it('holds at most 100 webhooks per workspace (409 past it)', async () => {
    for (let i = 0; i < 100; i++) await createHook({ url: `http://127.0.0.1:9/${i}` });
    const res = await svc.request('/api/v1/webhooks', { method: 'POST', json: { url: 'http://127.0.0.1:9/101' } });
    expect(res.status).toBe(409);
    expect((await res.json()).error.metadata).toEqual({ limit: 100 });
  });
});

describe('webhook addresses when private networks are not allowed (the default)', () => {
  // WEBHOOKS=off: the API works without a deliverer in this process, and nothing is sent off this machine.
  const svc = useApiSpecification({ WEBHOOKS: 'off' });

  it.each([
    ['http://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
    ['http://[::1]:8080/', /::1 is a loopback address/],
    ['http://10.0.0.7/', /private address/],
    ['http://[fd00:ec2::254]/', /cloud metadata/],
    ['http://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
    ['http://localhost:8080/', /localhost resolves to (127\.0\.0\.1|::1): .* loopback address/],
    ['http://[::7f00:1]/', /embeds 127\.0\.0\.1 .*loopback address/],
    ['http://[::127.0.0.1]/', /127\.0\.0\.1 .*loopback address/],
    ['http://[::a9fe:a9fe]/', /embeds 169\.254\.169\.254 .*cloud metadata/],
    ['http://[::a00:1]/', /embeds 10\.0\.0\.1 .*private address/],
    ['http://[::c0a8:1]/', /embeds 192\.168\.0\.1 .*private address/],
  ])('refuses %s at registration (400) and stores nothing', async (url, reason) => {
    const res = await svc.request('/api/v1/webhooks', { method: 'POST', json: { url } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.metadata.errors).toEqual([{ path: '$.url', message: expect.stringMatching(reason) }]);
    expect(body.error.metadata.errors[0].message).toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it/);
    expect((await (await svc.request('/api/v1/webhooks')).json()).total_count).toBe(0);
  });

  it('refuses a private URL in a PATCH too, and keeps the URL it had', async () => {
    const { createHook, getHook, patchHook } = webhookHelpers(() => svc);
    const hook = await createHook({ url: 'https://93.184.215.14/hook' });
    const res = await patchHook(hook.id, { url: 'http://192.168.0.1/' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors).toEqual([
      { path: '$.url', message: expect.stringMatching(/192\.168\.0\.1 is a private address/) },
    ]);
    expect((await getHook(hook.id)).url).toBe('https://93.184.215.14/hook');
    expect(svc.deliverer).toBeUndefined();
  });

  it('checks again at delivery: a webhook registered while allowed is refused once it is not, and the attempt says why', async () => {
    const r = await startReceiver();
    let current = await startApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '50' });
    try {
      const helpers = webhookHelpers(() => current);
      const hook = await helpers.createHook({ url: `http://localhost:${r.port}/hook` });
      current = await current.restart({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
      await helpers.write('refused-at-delivery');
      const [attempt] = await eventually(async () => {
        const log = await helpers.deliveries(hook.id);
        return log.length > 0 ? log : undefined;
      }, 'a refused attempt');
      expect(attempt).toMatchObject({
        outcome: 'failed',
        http_status: null,
        error: expect.stringMatching(/^refused: localhost resolves to .* loopback address/),
      });
      expect(r.received).toEqual([]);
    } finally {
      await current.close();
      await r.close();
    }
  });
});

describe('a webhook that fails for WEBHOOK_DISABLE_AFTER_MS', () => {
  it('is disabled with the reason shown, and the failures before it are in its deliveries', async () => {
    const svc = await startApiSpecification({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_MAX_MS: '100',
      WEBHOOK_DISABLE_AFTER_MS: '1000',
    });
    const r = await startReceiver(() => 500);
    try {
      const { createHook, getHook, write, deliveries } = webhookHelpers(() => svc);
      const hook = await createHook({ url: r.url });
      await write('failing');
      const disabled = await eventually(async () => {
        const h = await getHook(hook.id);
        return h.status === 'disabled' ? h : undefined;
      }, 'the webhook to be disabled');
      expect(disabled.status_reason).toMatch(
        /^every attempt failed from \S+ to \S+ \(WEBHOOK_DISABLE_AFTER_MS 1000\); the last: HTTP 500$/,
      );
      const log = await deliveries(hook.id);
      expect(log.length).toBeGreaterThan(2);
      expect(log.every((d) => d.outcome === 'failed' && d.http_status === 500)).toBe(true);
      expect(log[0]!.next_retry_at).toBeNull();
      const count = r.received.length;
      await new Promise((res) => setTimeout(res, 300));
      expect(r.received).toHaveLength(count);
    } finally {
      await r.close();
      await svc.close();
    }
  });
});
