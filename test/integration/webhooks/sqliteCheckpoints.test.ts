import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '#src/logger';
import { startWalCheckpointer } from '#src/sqlite/walCheckpointer';
import { openSqliteWebhookStore } from '#src/webhooks/sqlite';
import { newWebhook } from '#src/webhooks/webhook';
import { compiledEntry } from '#support/threads';

/**
 * The embedded webhook store under the service's WAL checkpointer, restarting the WAL as often as
 * it can from its own thread: every progress save and attempt still commits. (With transactions
 * that read before they write, a restart between the two failed the save with SQLITE_BUSY at once.)
 */
it('saves every delivery while the checkpointer restarts the WAL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-webhook-wal-'));
  const file = join(dir, 'webhooks.db');
  const store = openSqliteWebhookStore({ file });
  const checkpointer = await startWalCheckpointer({ files: [file], intervalMs: 1, restartAbovePages: 1 }, createLogger('silent'), {
    entry: compiledEntry('src/sqlite/walCheckpointerWorker'),
  });
  try {
    const stored = newWebhook(
      { url: 'https://example.com/h' },
      { id: 'w1', workspaceId: 'ws', secret: 'whsec_QUFBQQ==', now: new Date(), checkpoint: null },
    );
    await store.insert(stored);
    for (let n = 1; n <= 3000; n++) {
      const saved = await store.saveProgress(
        'w1',
        0,
        { checkpoint: BigInt(n), failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null },
        [
          {
            webhookId: 'w1',
            eventId: `e${n}`,
            eventType: 'PresetCreated',
            eventPosition: BigInt(n),
            attempt: 1,
            attemptedAt: new Date().toISOString(),
            outcome: 'succeeded',
            httpStatus: 204,
            error: null,
            latencyMs: 1,
            nextRetryAt: null,
          },
        ],
      );
      expect(saved).toBe(true);
    }
    expect((await store.get('ws', 'w1'))!.progress.checkpoint).toBe(3000n);
  } finally {
    await checkpointer.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/**
 * Saves made in the same turn (the delivery loops of several webhooks) are committed as one
 * transaction: each still answers for itself (a save under a replaced epoch is refused while the
 * others in its group are stored), and each attempt is in the log once its save has resolved.
 */
it('commits saves made together as one group, each answering for itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-webhook-group-'));
  const store = openSqliteWebhookStore({ file: join(dir, 'webhooks.db') });
  try {
    const ids = ['w1', 'w2', 'w3'];
    for (const id of ids)
      await store.insert(
        newWebhook(
          { url: 'https://example.com/h' },
          { id, workspaceId: 'ws', secret: 'whsec_QUFBQQ==', now: new Date(), checkpoint: null },
        ),
      );
    await store.rewind('ws', 'w2', 0n); // w2 is at epoch 1 now: a save under epoch 0 is refused
    const attempt = (webhookId: string, n: number) => ({
      webhookId,
      eventId: `e${n}`,
      eventType: 'PresetCreated',
      eventPosition: BigInt(n),
      attempt: 1,
      attemptedAt: new Date().toISOString(),
      outcome: 'succeeded' as const,
      httpStatus: 204,
      error: null,
      latencyMs: 1,
      nextRetryAt: null,
    });
    const progress = (n: number) => ({
      checkpoint: BigInt(n),
      failingSince: null,
      failingEventId: null,
      failingAttempts: 0,
      nextAttemptAt: null,
    });
    const saved = await Promise.all(ids.map((id, i) => store.saveProgress(id, 0, progress(10 + i), [attempt(id, 10 + i)])));
    expect(saved).toEqual([true, false, true]);
    expect((await store.get('ws', 'w1'))!.progress.checkpoint).toBe(10n);
    expect((await store.get('ws', 'w2'))!.progress.checkpoint).toBe(0n);
    expect((await store.get('ws', 'w3'))!.progress.checkpoint).toBe(12n);
    expect((await store.deliveries('w1', { limit: 10 })).map((a) => a.eventId)).toEqual(['e10']);
    expect((await store.deliveries('w3', { limit: 10 })).map((a) => a.eventId)).toEqual(['e12']);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
