import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { createApp } from '#src/http/app';
import { createSseRegistry } from '#src/http/sse';
import { createKeyRing } from '#src/auth/apiKeys';
import { createLogger } from '#src/logger';
import type { ReadModel } from '#projections/readmodel/readModel';
import { ConcurrencyConflict, StoreUnavailable } from '#src/eventstore/eventStore';
import { checkedFetch } from '../support/contract';
import { createMetrics } from '#src/observability/metrics';
import { instrumentCommands } from '#src/observability/instrument';
import type { PresetCommandHandler } from '#src/presets/handler';
import { parseScrape } from '../support/prometheus';
import { createMemoryUsageStore } from '#src/usage/memory';

/**
 * Faults below the HTTP layer, injected through the app factory's dependencies: a lost race is a
 * 409, an unavailable store a 503, anything else a 500 whose detail goes to the log only.
 */
describe('faults below the HTTP layer', () => {
  let server: Server;
  let base: string;
  const logs: string[] = [];
  const secretDetail = 'SQLITE_CORRUPT at /var/lib/presets/events.db';
  const metrics = createMetrics();

  beforeAll(async () => {
    const failing = () => {
      throw new Error(secretDetail);
    };
    const handle: PresetCommandHandler = async ({ data }) => {
      if (data.slug === 'raced') throw new ConcurrencyConflict('preset-x', 0n, 1n);
      if (data.slug === 'disk-full') throw new StoreUnavailable('storage unavailable (SQLITE_FULL)');
      return failing();
    };
    const readModel = { getPreset: failing, getPresetJson: failing, listPresets: failing } as unknown as ReadModel;
    const app = createApp({
      logger: createLogger(
        'info',
        new Writable({
          write(c, _e, done) {
            logs.push(String(c));
            done();
          },
        }),
      ),
      keyRing: createKeyRing([
        { key: 'pk_k', user_id: 'u', workspace_id: '7f0f1f3e-3b1c-4c55-9f55-0a6d1c7f1a11', scopes: ['presets:read', 'presets:write'] },
      ]),
      readModel,
      // As the service wires it: refusals by optimistic concurrency are counted.
      handle: instrumentCommands(handle, metrics),
      waitForPreset: async () => null,
      readiness: async () => ({ ready: true, checks: {} }),
      bodyLimitBytes: 1024 * 1024,
      readYourWritesTimeoutMs: 100,
      usage: createMemoryUsageStore(),
      eventStore: {} as never,
      feed: {} as never,
      sse: createSseRegistry(),
      sseHeartbeatMs: 15_000,
      webhooks: { list: failing } as never,
      consumerGroups: { list: failing } as never,
      destinationPolicy: { allowPrivateNetworks: false },
      metrics,
    });
    server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([
    ['a read', 'GET', '/api/v1/presets/anything', undefined],
    ['a write', 'POST', '/api/v1/presets/anything/chat/completions', JSON.stringify({ messages: [] })],
  ])('on %s: envelope without stack or path, detail in the log with the request id', async (_, method, path, body) => {
    const res = await checkedFetch(`${base}${path}`, {
      method,
      body,
      headers: { authorization: 'Bearer pk_k', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 500, message: expect.any(String), metadata: {} } });
    expect(text).not.toContain('SQLITE');
    expect(text).not.toContain('/var/lib');
    const requestId = res.headers.get('x-request-id')!;
    const line = logs.map((l) => JSON.parse(l)).find((l) => l.requestId === requestId && l.level === 50);
    expect(line.err.message).toBe(secretDetail);
  });

  const postTo = (slug: string) =>
    checkedFetch(`${base}/api/v1/presets/${slug}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ messages: [] }),
      headers: { authorization: 'Bearer pk_k', 'content-type': 'application/json' },
    });

  it('a lost concurrency race is a 409 in the envelope, counted as a conflict', async () => {
    const lostRaces = () =>
      metrics.scrape().then((text) => parseScrape(text).value('presets_concurrency_conflicts_total', { kind: 'lost_race' }));
    const before = await lostRaces();
    const res = await postTo('raced');
    expect(res.status).toBe(409);
    expect(await lostRaces()).toBe(before + 1);
    expect(await res.json()).toEqual({ error: { code: 409, message: expect.stringMatching(/concurrent/), metadata: {} } });
  });

  it('a store that cannot take writes is a 503 with Retry-After, counted as a store fault', async () => {
    const before = parseScrape(await metrics.scrape()).value('presets_store_faults_total');
    const res = await postTo('disk-full');
    expect(res.status).toBe(503);
    expect(parseScrape(await metrics.scrape()).value('presets_store_faults_total')).toBe(before + 1);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = await res.json();
    expect(body.error.code).toBe(503);
    expect(JSON.stringify(body)).not.toContain('SQLITE');
  });
});
