import { MessageChannel } from 'node:worker_threads';
import { endpoint, RemoteError } from '#src/threads/endpoint';

/** The one protocol across threads, over an in-process channel: both sides are the same code. */
describe('thread endpoint', () => {
  const pair = () => {
    const { port1, port2 } = new MessageChannel();
    const parent = endpoint<{ add(a: number, b: number): number; fail(): never; slow(ms: number): Promise<string> }, { tick: [n: number] }>(
      port1,
    );
    const child = endpoint<{ ask(): string }, Record<string, never>, { tick: [n: number] }>(port2);
    return { parent, child, close: () => port1.close() };
  };

  it('answers calls in either direction, each with its own answer, whatever order they finish in', async () => {
    const { parent, child, close } = pair();
    child.serve({
      add: (a: number, b: number) => a + b,
      slow: (ms: number) => new Promise((resolve) => setTimeout(() => resolve(`after ${ms}`), ms)),
    });
    parent.serve({ ask: () => 'parent here' });
    const [slow, fast, sum] = await Promise.all([parent.call('slow', 30), parent.call('slow', 1), parent.call('add', 2, 3)]);
    expect([slow, fast, sum]).toEqual(['after 30', 'after 1', 5]);
    expect(await child.call('ask')).toBe('parent here');
    close();
  });

  it('rejects a call with the error the other side threw, its code kept', async () => {
    const { parent, child, close } = pair();
    child.serve({
      fail: () => {
        throw Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
      },
    });
    await expect(parent.call('fail')).rejects.toEqual(new RemoteError('disk full', 'SQLITE_FULL'));
    await expect(parent.call('add', 1, 1)).rejects.toThrow(/no handler for add/);
    close();
  });

  it('delivers events in order to every listener', async () => {
    const { parent, child, close } = pair();
    const seen: number[] = [];
    const done = new Promise<void>((resolve) =>
      parent.on('tick', (n) => {
        seen.push(n);
        if (n === 3) resolve();
      }),
    );
    for (const n of [1, 2, 3]) child.emit('tick', n);
    await done;
    expect(seen).toEqual([1, 2, 3]);
    close();
  });

  it('fails the calls still waiting when the other side is gone', async () => {
    const { parent, close } = pair();
    const waiting = parent.call('add', 1, 2); // nobody serves it: no answer comes
    parent.failAll('the thread stopped');
    await expect(waiting).rejects.toMatchObject({ message: 'the thread stopped', code: 'THREAD_GONE' });
    // A call made after it is gone (a `stop` in a `finally`, after the thread ran out of memory)
    // fails at once: an answer that never comes would leave the caller waiting on nothing, and a
    // process with nothing else to do would end with exit code 0 and no verdict.
    await expect(parent.call('add', 3, 4)).rejects.toMatchObject({ message: 'the thread stopped', code: 'THREAD_GONE' });
    close();
  });
});
