import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEvent } from '#src/eventstore/eventStore';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import * as writer from '#src/eventstore/sqlite/writer';
import { until } from '#support/until';

/**
 * The embedded store hears of every commit to its file in the process (writer.ts announces them)
 * only while a subscription follows the log: a thread with no subscriber left (the HTTP thread
 * after its last SSE client, the delivery thread with every webhook paused) is not woken by each
 * commit. The poll interval here is a minute, so whatever arrives within seconds was announced.
 */
const event = (n: number): NewEvent => ({ id: randomUUID(), type: 'T', data: { n }, metadata: {} });
/** Within this, an event came by announcement (the poll interval is a minute). */
const PROMPTLY_MS = 5000;

it('listens for commits while a subscription follows the log, not after the last one stops, and again for the next', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-listener-'));
  const listeners: Array<{ closed: boolean }> = [];
  const onAppends = writer.onAppends;
  const spy = jest.spyOn(writer, 'onAppends').mockImplementation((file, listener) => {
    const real = onAppends(file, listener);
    const handle = { closed: false, close: () => ((handle.closed = true), real.close()) };
    listeners.push(handle);
    return handle;
  });
  const file = join(dir, 'events.db');
  // Two stores on one file, as the HTTP thread's and the projector thread's: one appends, one follows.
  const appender = openSqliteEventStore({ file, pollIntervalMs: 60_000, writerThread: false });
  const follower = openSqliteEventStore({ file, pollIntervalMs: 60_000, writerThread: false });
  try {
    const parsed: bigint[] = [];
    const stored: bigint[] = [];
    const a = follower.subscribe('start', async (e) => void parsed.push(e.position));
    const b = follower.subscribeStored!('start', async (e) => void stored.push(e.position));
    const first = await appender.append('s-1', [event(1)], 'no_stream');
    await until(() => parsed.length === 1 && stored.length === 1, PROMPTLY_MS);
    expect(listeners).toHaveLength(1);

    await a.stop();
    expect(listeners[0]!.closed).toBe(false); // one subscription still follows
    await b.stop();
    expect(listeners[0]!.closed).toBe(true);

    // Written while nothing follows; a new subscription reads it, then hears of the next commit.
    const meanwhile = await appender.append('s-1', [event(2)], 0n);
    const again: bigint[] = [];
    const c = follower.subscribe({ after: first.position }, async (e) => void again.push(e.position));
    const next = await appender.append('s-1', [event(3)], 1n);
    await until(() => again.length === 2, PROMPTLY_MS);
    expect(again).toEqual([meanwhile.position, next.position]);
    expect(listeners).toHaveLength(2);
    expect(listeners[1]!.closed).toBe(false);
    await c.stop();
    expect(listeners[1]!.closed).toBe(true);
  } finally {
    spy.mockRestore();
    await follower.close();
    await appender.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
