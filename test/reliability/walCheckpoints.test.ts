import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, freePort, spawnService, stopChild, waitReady, writeChildKeys } from '../support/process';

/**
 * The built service checkpoints both SQLite files from a thread of its own and keeps each WAL near
 * 4,000 pages (16 MiB) under writes that never pause. SQLite alone would let each grow to 10,000
 * pages (~40 MB) and then copy it inside a commit: this test writes more than that to both files,
 * so without the checkpointer thread both bounds below would be broken.
 */
jest.setTimeout(120_000);

const PAGE = 4096 + 24; // a WAL frame: the page and its header
const walPages = (file: string) => Math.round(statSync(`${file}-wal`).size / PAGE);

it('keeps both WAL files bounded under sustained writes, and every write answers 200', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-wal-service-'));
  const keys = writeChildKeys(dir);
  const port = await freePort();
  const child = spawnService({ PORT: String(port), DATA_DIR: join(dir, 'data'), API_KEYS_FILE: keys.file, LOG_LEVEL: 'warn' });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(base, child);
    // ~40 KB a write: 1,600 writes are ~64 MB of events and twice that in the read model.
    const prompt = 'You answer as a careful reviewer. '.repeat(1200);
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let i = 0; i < 200; i++) {
          const answer = await call(base, 'POST', `/api/v1/presets/wal-${writer}/chat/completions`, {
            key: keys.plain,
            json: { model: 'openai/gpt-4o', temperature: (i % 10) / 10, messages: [{ role: 'system', content: `${prompt}${i}` }] },
          });
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1600 });
    // The checkpointer restarts a WAL past 4,000 pages; between two of its rounds (100 ms) the
    // writes add a few hundred more. 6,000 leaves room for a slow round, and is far below 10,000.
    expect(walPages(join(dir, 'data', 'events.db'))).toBeLessThan(6000);
    expect(walPages(join(dir, 'data', 'readmodel.db'))).toBeLessThan(6000);
    expect(child.output()).not.toContain('WAL checkpoint failed');
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
});
