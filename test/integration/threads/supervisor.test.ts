import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as E from 'fp-ts/Either';
import { loadConfig } from '#src/config';
import { createLogger } from '#src/logger';
import { startSupervisedThread } from '#src/threads/supervisor';
import { compiledEntry } from '#support/threads';

/**
 * A supervised thread (the webhook deliverer's) that ends when nobody asked it to is started again
 * after the delay, and one that is stopped through the supervisor is not. A real worker thread:
 * the built delivery entry (dist/src/workers/deliverer.js) over an empty data directory.
 */
type Attached = Parameters<Parameters<typeof startSupervisedThread>[0]['attach']>[0];

/** The delivery thread, supervised, over an empty data directory of its own (removed by `cleanUp`). */
const superviseDeliverer = async (restartDelayMs: number, attach: (thread: Attached) => void) => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-supervisor-'));
  const loaded = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  if (E.isLeft(loaded)) throw new Error(loaded.left.join('; '));
  const supervised = await startSupervisedThread({
    entry: compiledEntry('src/workers/deliverer'),
    kind: 'deliverer',
    data: { config: loaded.right, pollIntervalMs: 60_000, resyncMs: 60_000 },
    logger: createLogger('silent'),
    restartDelayMs,
    attach,
  });
  const cleanUp = async () => {
    await supervised.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { supervised, cleanUp };
};

it('starts a thread that ended by itself again, and none after stop()', async () => {
  let started = 0;
  const { supervised, cleanUp } = await superviseDeliverer(50, () => void started++);
  try {
    const first = supervised.current();
    expect(first).not.toBeNull();
    await first!.stop(); // ends without the supervisor asking: as a thread that died would
    const deadline = Date.now() + 15_000;
    while ((supervised.current() === null || supervised.current() === first) && Date.now() < deadline) await sleep(20);
    expect(supervised.current()).not.toBe(first);
    expect(supervised.current()).not.toBeNull();
    expect(started).toBe(2);
    const second = supervised.current()!;
    await supervised.stop();
    expect(await second.exited).toBe(0);
    await sleep(200);
    expect(started).toBe(2);
    expect(supervised.current()).toBeNull();
  } finally {
    await cleanUp();
  }
});

it('stops a thread that is still starting again when stop() comes, and starts none after it', async () => {
  const threads: Attached[] = [];
  const { supervised, cleanUp } = await superviseDeliverer(10, (thread) => void threads.push(thread));
  try {
    await supervised.current()!.stop(); // dies: another is started 10 ms later
    const deadline = Date.now() + 15_000;
    while (threads.length < 2 && Date.now() < deadline) await sleep(1);
    expect(threads).toHaveLength(2);
    await supervised.stop(); // the second is still setting itself up
    expect(await Promise.race([threads[1]!.exited, sleep(10_000).then(() => 'still running')])).toBe(0);
    expect(supervised.current()).toBeNull();
    await sleep(100);
    expect(threads).toHaveLength(2);
  } finally {
    await cleanUp();
  }
});
