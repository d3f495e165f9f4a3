import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_B } from '../support/service';
import { startReceiver, type Receiver } from '../support/receiver';
import { eventually, sleep, webhookHelpers } from '../support/webhooks';

/**
 * Delivery, end to end: the real service, real HTTP receivers on 127.0.0.1 (so private networks
 * are allowed here), signatures checked with standardwebhooks' own verify. Backoff is kept short
 * by configuration (WEBHOOK_RETRY_MAX_MS), never by faking an answer.
 */
jest.setTimeout(60_000);

const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' });
const receivers: Receiver[] = [];
/** Every secret the API handed out in this suite: none may ever reach a log line. */
const secrets: string[] = [];
const { createHook: create, getHook, patchHook, deliveries, write, feed, verify, deleteAll } = webhookHelpers(() => svc);
const createHook = async (json: Record<string, unknown>, key = KEYS.writer) => {
  const hook = await create(json, key);
  secrets.push(hook.secret);
  return hook;
};
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

afterEach(async () => {
  await deleteAll();
  await deleteAll(KEYS.otherWorkspace);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('webhook delivery', () => {
  it('sends every event once, in feed order, each signed so standardwebhooks verifies it, its body the event as the feed shows it', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url });
    await write('d1-a');
    await write('d1-b');
    await write('d1-a');
    await svc.request('/api/v1/presets/d1-a/designated-version', { method: 'PUT', json: { version: 1 } });
    await write('d1-c');
    const events = await feed(hook.checkpoint);
    expect(events.map((e) => e.type)).toEqual([
      'PresetCreated',
      'PresetCreated',
      'PresetVersionAdded',
      'PresetVersionDesignated',
      'PresetCreated',
    ]);
    await r.until((got) => got.length >= events.length);
    await sleep(300); // nothing more comes
    expect(r.ids()).toEqual(events.map((e) => e.id));
    for (const [i, got] of r.received.entries()) {
      expect(verify(hook.secret, got)).toEqual(events[i]);
      expect(JSON.parse(got.body)).toEqual(events[i]);
      expect(got.headers['webhook-id']).toBe(events[i]!.id);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - got.at / 1000)).toBeLessThan(5);
      expect(got.headers['content-type']).toBe('application/json');
    }
    const log = await deliveries(hook.id);
    expect(log.map((d) => d.event_id)).toEqual(events.map((e) => e.id).reverse());
    expect(log.every((d) => d.outcome === 'succeeded' && d.http_status === 204 && d.attempt === 1 && d.next_retry_at === null)).toBe(true);
    expect((await getHook(hook.id)).checkpoint).toBe(events[events.length - 1]!.position);
  });

  it('sends only the event types asked for; without a list, every type', async () => {
    const some = await receiver();
    const all = await receiver();
    const filtered = await createHook({ url: some.url, events: ['PresetVersionDesignated', 'PresetVersionAdded'] });
    await createHook({ url: all.url });
    await write('f-a');
    await write('f-a');
    await svc.request('/api/v1/presets/f-a/designated-version', { method: 'PUT', json: { version: 1 } });
    await write('f-b');
    const events = await feed(filtered.checkpoint);
    await all.until((got) => got.length >= 4);
    await some.until((got) => got.length >= 2);
    await sleep(200);
    expect(some.ids()).toEqual(events.filter((e) => e.type !== 'PresetCreated').map((e) => e.id));
    expect(all.ids()).toEqual(events.map((e) => e.id));
  });

  it('sends the lifecycle events too: a status change and a label move, filtered by type', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['PresetStatusChanged', 'PresetLabelMoved'] });
    await write('life');
    expect((await svc.request('/api/v1/presets/life', { method: 'PATCH', json: { status: 'disabled' } })).status).toBe(200);
    expect((await svc.request('/api/v1/presets/life/labels/production', { method: 'PUT', json: { version: 1 } })).status).toBe(200);
    await r.until((got) => got.length >= 2);
    const events = (await feed(hook.checkpoint)).filter((e) => e.type !== 'PresetCreated');
    expect(events.map((e) => e.type)).toEqual(['PresetStatusChanged', 'PresetLabelMoved']);
    expect(r.received.map((got) => verify(hook.secret, got))).toEqual(events);
  });

  it('retries a receiver that answers 500 for a while until it takes every event, in order; the deliveries show each failed attempt', async () => {
    const r = await receiver((n) => (n <= 4 ? 500 : 204));
    const hook = await createHook({ url: r.url });
    await write('r-a');
    await write('r-b');
    await write('r-a');
    const events = await feed(hook.checkpoint);
    await r.until(() => r.acknowledged().length >= 3);
    expect(r.acknowledged()).toEqual(events.map((e) => e.id));
    // The first event took five attempts, each with the same id and a valid signature.
    expect(r.ids().slice(0, 5)).toEqual(Array(5).fill(events[0]!.id));
    for (const got of r.received) expect(verify(hook.secret, got)).toBeDefined();
    const log = (await deliveries(hook.id)).reverse();
    expect(log.slice(0, 5).map((d) => [d.event_id, d.attempt, d.outcome, d.http_status])).toEqual([
      [events[0]!.id, 1, 'failed', 500],
      [events[0]!.id, 2, 'failed', 500],
      [events[0]!.id, 3, 'failed', 500],
      [events[0]!.id, 4, 'failed', 500],
      [events[0]!.id, 5, 'succeeded', 204],
    ]);
    for (const failed of log.slice(0, 4))
      expect(Date.parse(failed.next_retry_at as string)).toBeGreaterThanOrEqual(Date.parse(failed.attempted_at as string));
    expect((await getHook(hook.id)).failing_since).toBeNull();
  });

  it('retries a receiver that is down (connection refused) until it is back, then sends every event in order', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url });
    await r.down();
    await write('down-a');
    await write('down-b');
    const failed = await eventually(async () => {
      const log = await deliveries(hook.id);
      return log.length >= 3 ? log : undefined;
    }, 'three refused attempts');
    expect(failed.every((d) => d.outcome === 'failed' && d.http_status === null && /connection refused/.test(String(d.error)))).toBe(true);
    expect((await getHook(hook.id)).failing_since).toEqual(expect.any(String));
    await r.up();
    const events = await feed(hook.checkpoint);
    await r.until(() => r.acknowledged().length >= 2);
    expect(r.acknowledged()).toEqual(events.map((e) => e.id));
    expect((await getHook(hook.id)).failing_since).toBeNull();
  });

  it('a receiver that never answers does not hold up another webhook', async () => {
    const stuck = await receiver(() => 'hang');
    const fine = await receiver();
    await createHook({ url: stuck.url });
    const other = await createHook({ url: fine.url });
    await write('slow-a');
    await write('slow-b');
    await write('slow-c');
    const events = await feed(other.checkpoint);
    await fine.until((got) => got.length >= 3);
    expect(fine.ids()).toEqual(events.map((e) => e.id));
    // Meanwhile the stuck one is still at its first event.
    expect(new Set(stuck.ids())).toEqual(new Set([events[0]!.id]));
    // And the API answers as ever.
    expect((await svc.request('/api/v1/presets/slow-a')).status).toBe(200);
  });

  it('sends nothing while paused, and everything it missed, in order, once resumed', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url });
    await write('p-a');
    await r.until((got) => got.length === 1);
    const paused = await patchHook(hook.id, { status: 'paused' });
    expect(paused.status).toBe(200);
    expect((await paused.json()).data.status).toBe('paused');
    await write('p-b');
    await write('p-c');
    await sleep(500);
    expect(r.received).toHaveLength(1);
    expect((await (await patchHook(hook.id, { status: 'active' })).json()).data.status).toBe('active');
    await r.until((got) => got.length >= 3);
    expect(r.ids()).toEqual((await feed(hook.checkpoint)).map((e) => e.id));
  });

  it('replays every matching event after a position, in order, and then goes on', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['PresetVersionAdded'] });
    await write('rp-a');
    await write('rp-a');
    await write('rp-a');
    await write('rp-b');
    const events = await feed(hook.checkpoint);
    const added = events.filter((e) => e.type === 'PresetVersionAdded');
    await r.until((got) => got.length >= 2);
    const replay = await svc.request(`/api/v1/webhooks/${hook.id}/replay`, { method: 'POST', json: { after: events[0]!.position } });
    expect(replay.status).toBe(200);
    expect((await replay.json()).data.checkpoint).toBe(events[0]!.position);
    await r.until((got) => got.length >= 4);
    await write('rp-a');
    await r.until((got) => got.length >= 5);
    const latest = (await feed(events[events.length - 1]!.position))[0]!;
    expect(r.ids()).toEqual([...added.map((e) => e.id), ...added.map((e) => e.id), latest.id]);
  });

  it('after a rotation signs with both secrets for the overlap, each verifying on its own', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url });
    await write('rot-a');
    await r.until((got) => got.length === 1);
    const rotated = await svc.request(`/api/v1/webhooks/${hook.id}/rotate-secret`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const { data } = await rotated.json();
    secrets.push(data.secret);
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(data.secret).not.toBe(hook.secret);
    const overlapMs = Date.parse(data.previous_secret_expires_at) - Date.now();
    expect(overlapMs).toBeGreaterThan(23.9 * 3600_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000);
    await write('rot-b');
    await r.until((got) => got.length === 2);
    const [before, after] = r.received;
    expect(String(before!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(String(after!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verify(data.secret, before!)).toThrow();
    expect(verify(hook.secret, after!)).toBeDefined();
    expect(verify(data.secret, after!)).toBeDefined();
  });

  it('disables a webhook whose endpoint answers 410 Gone at once, and sends again once it is set active', async () => {
    const r = await receiver(() => 410);
    const hook = await createHook({ url: r.url });
    await write('gone-a');
    const disabled = await eventually(async () => {
      const h = await getHook(hook.id);
      return h.status === 'disabled' ? h : undefined;
    }, 'the webhook to be disabled');
    expect(disabled.status_reason).toBe('the endpoint answered 410 Gone');
    await write('gone-b');
    await sleep(300);
    expect(r.received).toHaveLength(1);
    const [attempt] = await deliveries(hook.id);
    expect(attempt).toMatchObject({ outcome: 'failed', http_status: 410, next_retry_at: null });
    r.behave(() => 204);
    const active = await (await patchHook(hook.id, { status: 'active' })).json();
    expect(active.data).toMatchObject({ status: 'active', status_reason: null, failing_since: null });
    await r.until(() => r.acknowledged().length >= 2);
    expect(r.acknowledged()).toEqual((await feed(hook.checkpoint)).map((e) => e.id));
  });

  it('sends a workspace only its own events, and hides its webhooks from every other workspace', async () => {
    const ra = await receiver();
    const rb = await receiver();
    const a = await createHook({ url: ra.url });
    const b = await createHook({ url: rb.url }, KEYS.otherWorkspace);
    await write('iso', 'a1');
    await write('iso', 'b1', KEYS.otherWorkspace);
    await write('iso', 'a2');
    await ra.until((got) => got.length >= 2);
    await rb.until((got) => got.length >= 1);
    await sleep(200);
    expect(ra.ids()).toEqual((await feed(a.checkpoint)).map((e) => e.id));
    expect(rb.ids()).toEqual((await feed(b.checkpoint, KEYS.otherWorkspace)).map((e) => e.id));
    expect(rb.received.every((got) => JSON.parse(got.body).stream.includes(WORKSPACE_B))).toBe(true);
    for (const [method, path, json] of [
      ['GET', `/api/v1/webhooks/${a.id}`],
      ['PATCH', `/api/v1/webhooks/${a.id}`, { status: 'paused' }],
      ['DELETE', `/api/v1/webhooks/${a.id}`],
      ['GET', `/api/v1/webhooks/${a.id}/deliveries`],
      ['POST', `/api/v1/webhooks/${a.id}/replay`, { after: '0' }],
      ['POST', `/api/v1/webhooks/${a.id}/rotate-secret`],
    ] as const) {
      const res = await svc.request(path, { method, json, key: KEYS.otherWorkspace });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    const listed = await (await svc.request('/api/v1/webhooks', { key: KEYS.otherWorkspace })).json();
    expect(listed.data.map((h: { id: string }) => h.id)).toEqual([b.id]);
    expect((await getHook(a.id)).status).toBe('active');
  });

  it('writes no secret to any log line', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const logs = svc.logs.join('');
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.slice('whsec_'.length));
    }
    expect(logs).toMatch(/delivery failed; retrying/); // the failures were logged, without their secrets
  });
});
