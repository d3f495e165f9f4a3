import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as E from 'fp-ts/Either';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { EVENTS_FILE } from '#src/backends';
import { loadConfig, type Config } from '#src/config';
import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { createLogger } from '#src/logger';
import { createPresetCommandHandler } from '#src/presets/handler';
import type { Deliverer } from '#src/webhooks/deliverer';
import { startDelivererThread } from '#src/webhooks/delivererThread';
import { openSqliteWebhookStore, WEBHOOKS_FILE } from '#src/webhooks/sqlite';
import { newSecret } from '#src/webhooks/signing';
import { newWebhook, patchWebhook } from '#src/webhooks/webhook';
import type { NewDeliveryAttempt, WebhookStore } from '#src/webhooks/webhookStore';
import { until } from '#support/until';
import { startReceiver, type Receiver } from '#support/receiver';
import { compiledEntry } from '#support/threads';
import { eventJson } from '#src/workspaceLog/eventJson';

/**
 * The built service delivers webhooks in a worker thread of its own (dist/src/workers/deliverer.js,
 * compiled by the jest globalSetup), with its own connections to both stores. What the API's
 * thread relies on: deliveries signed and in order, every attempt told back to it (the metrics),
 * a restarted thread resuming from each webhook's saved checkpoint, a slow receiver holding up no
 * other webhook of the workspace, and a change or a delete reaching the thread before `changed`
 * resolves. The thread's event store polls once a minute here: only the commits' announcements
 * can make deliveries come before a test times out.
 */
const WORKER = compiledEntry('src/workers/deliverer');
const W = randomUUID();
let dir: string;
let config: Config;
let events: EventStoreAdapter;
let hooks: WebhookStore;
let receivers: Receiver[] = [];
let thread: Deliverer | undefined;
const attempts: NewDeliveryAttempt[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-delivery-thread-'));
  const loaded = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_MAX_MS: '50' });
  if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '));
  config = loaded.right;
  events = openSqliteEventStore({ file: join(dir, EVENTS_FILE), writerThread: false, pollIntervalMs: 60_000 });
  hooks = openSqliteWebhookStore({ file: join(dir, WEBHOOKS_FILE) });
  attempts.length = 0;
});
afterEach(async () => {
  await thread?.stop();
  thread = undefined;
  for (const r of receivers) await r.close();
  receivers = [];
  await hooks.close();
  await events.close();
  rmSync(dir, { recursive: true, force: true });
});

const start = async () =>
  (thread = await startDelivererThread({
    entry: WORKER,
    data: { config, pollIntervalMs: 60_000, resyncMs: 60_000 },
    logger: createLogger('silent'),
    onAttempt: (attempt) => void attempts.push(attempt),
  }));

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

const register = async (url: string) => {
  const secret = newSecret();
  const stored = newWebhook({ url }, { id: randomUUID(), workspaceId: W, secret, now: new Date(), checkpoint: null });
  await hooks.insert(stored);
  return { id: stored.webhook.id, secret };
};

/** Writes presets through the command handler; answers their event ids in the order they were stored. */
const write = async (...slugs: string[]) => {
  const handle = createPresetCommandHandler({ eventStore: events });
  const ids: string[] = [];
  for (const slug of slugs) {
    await handle({
      type: 'AddPresetVersion',
      data: { workspaceId: W, slug, config: { model: 'm/a' }, systemPrompt: slug },
      metadata: { requestId: randomUUID(), actorUserId: 'u' },
    });
    const [last] = await events.readAllBackwards({ limit: 1 });
    ids.push(last!.id);
  }
  return ids;
};

it('delivers in order, signed, tells the API thread of every attempt, and resumes after a restart from the saved checkpoint', async () => {
  const r = await receiver();
  const hook = await register(r.url);
  const first = await write('a', 'b', 'c');
  await start();
  await r.until((got) => got.length >= 3);
  expect(r.acknowledged()).toEqual(first);
  for (const got of r.received) expect(() => new StandardWebhook(hook.secret).verify(got.body, { ...got.headers } as never)).not.toThrow();
  // The thread reads the log as stored text: each body is still the event as the API shows it (parsed, checked, upcast).
  const shown = (await events.readAll({ limit: 100 })).map(eventJson);
  expect(r.received.map((got) => JSON.parse(got.body) as unknown)).toEqual(shown);
  // The attempts made in the thread reach the parent's onAttempt (the /metrics counters and lag).
  await until(() => attempts.length === 3);
  expect(attempts.map((a) => [a.eventId, a.outcome, a.httpStatus])).toEqual(first.map((id) => [id, 'succeeded', 204]));

  await thread!.stop();
  thread = undefined;
  expect((await hooks.get(W, hook.id))!.progress.checkpoint).toBe((await events.headPosition())!);
  const later = await write('d', 'e');
  await start();
  await r.until((got) => got.length >= 5);
  await sleep(200); // room for a wrongly repeated event
  expect(r.ids()).toEqual([...first, ...later]);
});

it('delivers a range of events as large as the body limit allows, every one once, without running out of its heap', async () => {
  // 24 events of ~6 MB (a body limit of 8 MiB): one 128-event page of them was ~144 MB of text, past
  // the thread's 128 MB old generation, and the thread died on that page at every start. Pages of
  // stored text are now sized by bytes, and the first one by the body limit (deliveryLimits).
  const loaded = loadConfig({
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    BODY_LIMIT_BYTES: String(8 * 1024 * 1024),
  });
  if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '));
  config = loaded.right;
  const r = await receiver();
  await register(r.url);
  const handle = createPresetCommandHandler({ eventStore: events });
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) {
    const prompt = `${i} `.padEnd(6_000_000, 'x');
    await handle({
      type: 'AddPresetVersion',
      data: { workspaceId: W, slug: `big-${i}`, config: { model: 'm/a' }, systemPrompt: prompt },
      metadata: { requestId: randomUUID(), actorUserId: 'u' },
    });
    ids.push((await events.readAllBackwards({ limit: 1 }))[0]!.id);
  }
  await start();
  await r.until((got) => got.length >= ids.length, 60_000);
  expect(r.acknowledged()).toEqual(ids);
  expect(Math.min(...r.received.map((got) => got.body.length))).toBeGreaterThan(6_000_000);
}, 120_000);

it('a slow receiver holds up no other webhook of the workspace', async () => {
  const slow = await receiver(() => ({ status: 204, afterMs: 2000 }));
  const fast = await receiver();
  await register(slow.url);
  await register(fast.url);
  await start();
  const ids = await write('a', 'b', 'c', 'd', 'e');
  await fast.until((got) => got.length >= 5, 5000);
  expect(fast.acknowledged()).toEqual(ids);
  // The slow one is still waiting on its first answer (or just got it): each keeps its own position.
  expect(slow.acknowledged().length).toBeLessThanOrEqual(1);
  await slow.until((got) => got.length >= 2, 10_000);
  expect(slow.ids()).toEqual(ids.slice(0, slow.received.length));
});

it('a change of URL and a delete reach the thread before changed() resolves', async () => {
  const a = await receiver();
  const b = await receiver();
  const hook = await register(a.url);
  const deliverer = await start();
  const [one] = await write('one');
  await a.until((got) => got.length >= 1);

  const current = (await hooks.get(W, hook.id))!.webhook;
  const patched = patchWebhook(current, { url: b.url }, new Date())!;
  expect(await hooks.update(patched.webhook, current.revision)).toBe(true);
  await deliverer.changed(W, hook.id);
  const [two] = await write('two');
  await b.until((got) => got.length >= 1);
  expect(b.ids()).toEqual([two]);
  expect(a.ids()).toEqual([one]);

  expect(await hooks.delete(W, hook.id)).toBe(true);
  await deliverer.changed(W, hook.id);
  expect(deliverer.running).toBe(0);
  await write('three');
  await sleep(500);
  expect(a.ids()).toEqual([one]);
  expect(b.ids()).toEqual([two]);
});
