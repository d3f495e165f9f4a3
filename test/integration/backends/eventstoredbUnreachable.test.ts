import { randomUUID } from 'node:crypto';
import { StoreUnavailable } from '#src/eventstore/eventStore';
import { openEventStoreDbEventStore } from '#src/eventstore/eventstoredb/store';

// No server: port 1 on the loopback refuses connections, so the real client fails the way it does
// when EventStoreDB is down. What is checked is our side: the error we raise, the retry, stop().
const URL = 'esdb://127.0.0.1:1?tls=false';

describe('EventStoreDB event store with the server unreachable', () => {
  const warnings: string[] = [];
  const logger = { warn: (_: object, msg: string) => void warnings.push(msg), info: () => {} };
  const store = openEventStoreDbEventStore({ url: URL, logger });
  afterAll(() => store.close());

  it('rejects appends and reads with StoreUnavailable (a 503)', async () => {
    const event = { id: randomUUID(), type: 'PresetCreated', data: {}, metadata: {} };
    await expect(store.append('preset-x', [event], 'no_stream')).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.read('preset-x')).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.readAll({ limit: 10 })).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailable);
  });

  it('keeps resubscribing with a warning instead of giving up, and stops promptly', async () => {
    const onError = jest.fn();
    const sub = store.subscribe('start', async () => {}, { streamPrefix: 'preset-', onError });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const started = Date.now();
    await sub.stop();
    // Without waiting out its reconnection back-off (which keeps going while the server is down).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(warnings.filter((w) => /resubscribing/.test(w)).length).toBeGreaterThanOrEqual(2);
    expect(onError).not.toHaveBeenCalled();
  });
});
