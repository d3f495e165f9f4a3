import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyRing } from '#src/auth/apiKeys';
import { openMemoryWebhookStore } from '#src/webhooks/memory';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { createApp } from '#src/http/app';
import { createSseRegistry } from '#src/http/sse';
import { createLogger } from '#src/logger';
import { createPresetCommandHandler, type PresetCommandRequest } from '#src/presets/handler';
import { presetAt } from '#projections/presetAt';
import { projectBatch } from '#projections/projectBatch';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { createMemoryUsageStore } from '#src/usage/memory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/**
 * A write answers with the preset as that write left it, even when another write has already
 * moved the read model on by the time it answers: the document is then folded from the events up
 * to the write's revision. Here every write's wait ends only after a second, later change.
 */
const WS = '5b1f3c2d-8e4a-4b6c-9d0e-1f2a3b4c5d6e';
const store = openMemoryEventStore();
const readModel = openMemoryReadModel();
const handle = createPresetCommandHandler({ eventStore: store });
const projectAll = async () => projectBatch(readModel, await store.readAll({ limit: 1000, streamPrefix: WORKSPACE_STREAM_PREFIX }), 'test');
let later: PresetCommandRequest | undefined;
let server: Server;
let base: string;

beforeAll(async () => {
  const app = createApp({
    logger: createLogger('silent'),
    keyRing: createKeyRing([{ key: 'pk_k', user_id: 'u', workspace_id: WS, scopes: ['presets:read', 'presets:write'] }]),
    readModel,
    handle,
    waitForPreset: async (workspaceId, slug) => {
      if (later) await handle(later); // someone else's write lands first
      later = undefined;
      await projectAll();
      return readModel.getPresetJson(workspaceId, slug);
    },
    presetAt: (workspaceId, slug, revision) => presetAt(store, workspaceId, slug, revision),
    readiness: async () => ({ ready: true, checks: {} }),
    bodyLimitBytes: 1024 * 1024,
    readYourWritesTimeoutMs: 1000,
    usage: createMemoryUsageStore(),
    eventStore: store,
    feed: store,
    webhooks: openMemoryWebhookStore(),
    consumerGroups: {} as never,
    destinationPolicy: { allowPrivateNetworks: false },
    sse: createSseRegistry(),
    sseHeartbeatMs: 15_000,
  });
  server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const send = (method: string, path: string, json?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: 'Bearer pk_k', 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
const version = (prompt: string) =>
  send('POST', '/api/v1/presets/bot/chat/completions', { model: 'm', messages: [{ role: 'system', content: prompt }] });

it('shows the version a write added, not the one a later write added', async () => {
  await version('one');
  later = {
    type: 'AddPresetVersion',
    data: { workspaceId: WS, slug: 'bot', config: { model: 'm' }, systemPrompt: 'three' },
    metadata: { requestId: 'later', actorUserId: 'other' },
  };
  const res = await version('two');
  expect(res.headers.get('etag')).toBe('"1"');
  expect((await res.json()).data.designated_version).toMatchObject({ version: 2, system_prompt: 'two' });
  expect((await readModel.getPreset(WS, 'bot'))!.view.designated_version.version).toBe(3); // the read model had moved on
});

it('shows the labels, name and status a lifecycle write left, not the later ones', async () => {
  later = {
    type: 'MoveLabel',
    data: { workspaceId: WS, slug: 'bot', label: 'production', version: 1 },
    metadata: { requestId: 'later', actorUserId: 'other' },
  };
  const labelled = await send('PUT', '/api/v1/presets/bot/labels/staging', { version: 2 });
  expect((await labelled.json()).data.labels).toEqual({ staging: 2 });

  later = {
    type: 'ChangePreset',
    data: { workspaceId: WS, slug: 'bot', status: 'disabled' },
    metadata: { requestId: 'later', actorUserId: 'other' },
  };
  const renamed = await send('PATCH', '/api/v1/presets/bot', { name: 'Bot' });
  const body = (await renamed.json()).data;
  expect(body).toMatchObject({ name: 'Bot', status: 'active', labels: { staging: 2, production: 1 } });
  expect(renamed.headers.get('etag')).toBe('"5"');
  expect((await readModel.getPreset(WS, 'bot'))!.view).toMatchObject({ status: 'disabled' });
});
