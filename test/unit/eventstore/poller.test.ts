import { createPoller } from '#src/eventstore/poller';
import type { RecordedEvent } from '#src/eventstore/eventStore';

/**
 * The embedded store's subscriptions: an append in this process is delivered at once, also when
 * it comes while the subscription is busy delivering the one before (a projector under load).
 */
const event = (position: number): RecordedEvent => ({
  id: `e${position}`,
  type: 'T',
  stream: 'preset-w-s',
  revision: BigInt(position - 1),
  position: BigInt(position),
  data: {},
  metadata: {},
  recordedAt: new Date(0),
});

it('delivers an event appended while the one before is being delivered, without waiting for the poll', async () => {
  const stored: RecordedEvent[] = [event(1)];
  const poller = createPoller((after, limit) => stored.filter((e) => e.position > after).slice(0, limit));
  const delivered: bigint[] = [];
  const second = new Promise<void>((resolve) => {
    poller.subscribe(
      'start',
      async (e) => {
        delivered.push(e.position);
        if (e.position === 1n) {
          // Appended and notified while this delivery is still running.
          stored.push(event(2));
          poller.notify();
        } else resolve();
      },
      { pollIntervalMs: 600_000 },
    );
  });
  await second; // with the notification lost, this would wait for the 10-minute poll (the test times out)
  expect(delivered).toEqual([1n, 2n]);
  await poller.stopAll();
});

it('waits for a notification when there is nothing new, then delivers what came', async () => {
  const stored: RecordedEvent[] = [];
  const poller = createPoller((after, limit) => stored.filter((e) => e.position > after).slice(0, limit));
  const got = new Promise<bigint>((resolve) => {
    poller.subscribe('start', async (e) => resolve(e.position), { pollIntervalMs: 600_000 });
  });
  await new Promise((r) => setTimeout(r, 20)); // the subscription is waiting
  stored.push(event(1));
  poller.notify();
  expect(await got).toBe(1n);
  await poller.stopAll();
});

it('stops at once when stopped while delivering, not after the poll interval', async () => {
  const stored: RecordedEvent[] = [event(1)];
  const poller = createPoller((after, limit) => stored.filter((e) => e.position > after).slice(0, limit));
  let stopping: Promise<void> | undefined;
  const subscription = poller.subscribe(
    'start',
    async () => {
      stopping = subscription.stop(); // e.g. a shutdown that comes while the projector is busy
    },
    { pollIntervalMs: 600_000 },
  );
  await new Promise((r) => setTimeout(r, 20));
  await stopping; // with the abort missed, this would last the 10-minute poll (the test times out)
});
