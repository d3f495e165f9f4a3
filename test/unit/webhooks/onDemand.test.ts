import pino from 'pino';
import type { Deliverer } from '#src/webhooks/deliverer';
import { openMemoryWebhookStore } from '#src/webhooks/memory';
import { delivererOnDemand } from '#src/webhooks/onDemand';
import { newWebhook } from '#src/webhooks/webhook';

/**
 * A service whose workspaces have no active webhook runs no delivery thread; the first active
 * webhook starts it, however it was made, and from then on the deliverer does the work.
 */
describe('webhook delivery on demand', () => {
  const logger = pino({ level: 'silent' });
  const WS = '00000000-0000-4000-8000-000000000001';
  const webhook = (n: number) =>
    newWebhook(
      { url: `https://example.com/hook/${n}` },
      { id: `00000000-0000-4000-8000-00000000010${n}`, workspaceId: WS, secret: 'whsec_test', now: new Date(), checkpoint: null },
    );

  /** A stand-in for the deliverer (its thread): what it was asked, and how often it was started. */
  const fakeStarts = (fail = 0) => {
    const calls: string[] = [];
    let starts = 0;
    const deliverer: Deliverer = {
      changed: async (_ws, id) => void calls.push(`changed ${id}`),
      resync: async () => void calls.push('resync'),
      running: 7,
      stop: async () => void calls.push('stop'),
    };
    const start = async () => {
      starts++;
      await new Promise((resolve) => setTimeout(resolve, 5)); // a thread takes a moment to start
      if (starts <= fail) throw new Error('the thread could not start');
      return deliverer;
    };
    return { start, calls, starts: () => starts };
  };
  const eventually = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(check()).toBe(true);
  };

  it('starts nothing while no webhook is active, and nothing for a paused one', async () => {
    const store = openMemoryWebhookStore();
    const paused = webhook(1);
    paused.webhook.status = 'paused';
    await store.insert(paused);
    const fake = fakeStarts();
    const d = await delivererOnDemand({ store, start: fake.start, logger, resyncMs: 10 });
    await d.changed(WS, paused.webhook.id);
    await d.resync();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.starts()).toBe(0);
    expect(d.running).toBe(0);
    await d.stop();
  });

  it('starts at once when a webhook is already active, and hands every change to the deliverer', async () => {
    const store = openMemoryWebhookStore();
    await store.insert(webhook(1));
    const fake = fakeStarts();
    const d = await delivererOnDemand({ store, start: fake.start, logger });
    expect(fake.starts()).toBe(1);
    expect(d.running).toBe(7);
    await d.changed(WS, webhook(2).webhook.id); // a webhook the store does not hold: the deliverer decides
    await d.resync();
    await d.stop();
    expect(fake.calls).toEqual([`changed ${webhook(2).webhook.id}`, 'resync', 'stop']);
    expect(fake.starts()).toBe(1);
  });

  it('starts once for the first active webhook this process makes, however many changes arrive together', async () => {
    const store = openMemoryWebhookStore();
    const fake = fakeStarts();
    const d = await delivererOnDemand({ store, start: fake.start, logger, resyncMs: 60_000 });
    const [a, b] = [webhook(1), webhook(2)];
    await store.insert(a);
    await store.insert(b);
    await Promise.all([d.changed(WS, a.webhook.id), d.changed(WS, b.webhook.id)]);
    expect(fake.starts()).toBe(1);
    expect(fake.calls.sort()).toEqual([`changed ${a.webhook.id}`, `changed ${b.webhook.id}`].sort());
    await d.stop();
  });

  it('finds a webhook made elsewhere (another replica) at its next look', async () => {
    const store = openMemoryWebhookStore();
    const fake = fakeStarts();
    const d = await delivererOnDemand({ store, start: fake.start, logger, resyncMs: 10 });
    expect(fake.starts()).toBe(0);
    await store.insert(webhook(1)); // not through this process: no `changed`
    await eventually(() => fake.starts() === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.starts()).toBe(1); // found, it stops looking
    await d.stop();
  });

  it('keeps the change of a webhook whose start failed, and starts at the next look', async () => {
    const store = openMemoryWebhookStore();
    const fake = fakeStarts(1);
    const d = await delivererOnDemand({ store, start: fake.start, logger, resyncMs: 10 });
    await store.insert(webhook(1));
    await expect(d.changed(WS, webhook(1).webhook.id)).resolves.toBeUndefined(); // the webhook is stored; delivery follows
    await eventually(() => fake.starts() === 2);
    await eventually(() => d.running === 7);
    await d.stop();
  });

  it('stops a deliverer still starting when it is stopped, and starts nothing after', async () => {
    const store = openMemoryWebhookStore();
    const fake = fakeStarts();
    const d = await delivererOnDemand({ store, start: fake.start, logger, resyncMs: 10 });
    await store.insert(webhook(1));
    const changing = d.changed(WS, webhook(1).webhook.id);
    await new Promise((resolve) => setImmediate(resolve));
    await d.stop();
    await changing;
    expect(fake.calls).toContain('stop');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.starts()).toBe(1);
  });
});
