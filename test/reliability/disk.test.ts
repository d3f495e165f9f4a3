import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailable } from '#src/eventstore/eventStore';
import { storeFault } from '#src/sqlite/connection';
import { spawnService, writeChildKeys } from '../support/process';
import { chatBody, removeDir, startTestService } from '../support/service';

/**
 * Storage faults. A full disk is a real size-limited tmpfs filled to the last byte, so SQLite
 * itself reports SQLITE_FULL; an unwritable DATA_DIR is a tmpfs remounted read-only (root ignores
 * chmod 555, not a read-only mount). Mounting needs root: without it those tests are skipped by
 * name, and the injected fault at the store's boundary (always run) still covers the 503 path.
 */
jest.setTimeout(60_000);
const sqliteError = (code: string) => Object.assign(new Error(`sqlite says ${code}`), { code });
const mountProblem = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'presets-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return (
      String((error as { stderr?: Buffer }).stderr ?? error)
        .trim()
        .split('\n')[0] || 'mount failed'
    );
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
const withMount = mountProblem ? it.skip : it;
const suffix = mountProblem ? ` [skipped: cannot mount a tmpfs here (${mountProblem})]` : '';
const mounted: string[] = [];
const mountTmpfs = (size: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'presets-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of mounted) {
    try {
      execFileSync('umount', ['-l', dir]);
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
// ~600 KB of config: more than the WAL has room for once the disk is full.
const bigBody = () =>
  chatBody({
    tools: Array.from({ length: 3000 }, (_, i) => ({ type: 'function', function: { name: `f${i}`, description: 'x'.repeat(150) } })),
  });

withMount(
  `a full disk: writes answer 503 in the envelope and log SQLITE_FULL, stored data stays intact, writes resume when space returns${suffix}`,
  async () => {
    const dir = mountTmpfs('8m');
    const svc = await startTestService({}, dir);
    try {
      for (let i = 0; i < 3; i++)
        expect((await svc.request('/api/v1/presets/kept/chat/completions', { method: 'POST', json: chatBody({ seed: i }) })).status).toBe(
          200,
        );
      const before = await (await svc.request('/api/v1/presets/kept/versions')).json();
      const head = await svc.eventStore.headPosition();
      const filler = join(dir, 'filler');
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (let i = 0; i < 1000; i++) writeSync(fd, chunk); // 64 MB at most: far past the mount's 8 MB
        throw new Error('the tmpfs never filled up');
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      const full = await svc.request('/api/v1/presets/kept/chat/completions', { method: 'POST', json: bigBody() });
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
      const envelope = await full.json();
      expect(envelope).toEqual({ error: { code: 503, message: expect.stringMatching(/storage/), metadata: {} } });
      const line = svc.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === full.headers.get('x-request-id') && l.level === 50);
      expect(line.err.message).toMatch(/SQLITE_FULL/);
      expect(await svc.eventStore.headPosition()).toBe(head);
      expect(await (await svc.request('/api/v1/presets/kept/versions')).json()).toEqual(before);

      unlinkSync(filler);
      const again = await svc.request('/api/v1/presets/kept/chat/completions', { method: 'POST', json: bigBody() });
      expect(again.status).toBe(200);
      expect((await again.json()).data.designated_version.version).toBe(4);
    } finally {
      await svc.stop();
    }
  },
);

withMount(`a read-only DATA_DIR at start: a clear start error naming the directory, exit 1${suffix}`, async () => {
  const dir = mountTmpfs('4m');
  const keys = writeChildKeys(mkdtempSync(join(tmpdir(), 'presets-rokeys-')));
  execFileSync('mount', ['-o', 'remount,ro', dir]);
  const child = spawnService({ PORT: '0', DATA_DIR: dir, API_KEYS_FILE: keys.file });
  expect(await child.exited).toEqual({ code: 1, signal: null });
  const out = child.output();
  expect(out).toContain(`presets could not start`);
  expect(out).toMatch(/DATA_DIR .* is not a writable directory \(EROFS\)/);
  expect(out).toContain(dir);
  removeDir(join(keys.file, '..'));
});

it('an injected SQLITE_FULL at the event store boundary: 503 envelope, nothing stored, writes resume', async () => {
  const svc = await startTestService();
  try {
    expect((await svc.request('/api/v1/presets/inj/chat/completions', { method: 'POST', json: chatBody() })).status).toBe(200);
    const append = svc.eventStore.append.bind(svc.eventStore);
    let full = true;
    // What sqlite.ts does with a failed transaction: reject every append in it with storeFault(error).
    svc.eventStore.append = (...args) => (full ? Promise.reject(storeFault(sqliteError('SQLITE_FULL'))) : append(...args));
    const res = await svc.request('/api/v1/presets/inj/chat/completions', { method: 'POST', json: chatBody({ seed: 1 }) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await res.json()).error).toEqual({ code: 503, message: expect.any(String), metadata: {} });
    expect(svc.logs.some((l) => l.includes('SQLITE_FULL') && l.includes('"level":50'))).toBe(true);
    full = false;
    const ok = await svc.request('/api/v1/presets/inj/chat/completions', { method: 'POST', json: chatBody({ seed: 2 }) });
    expect((await ok.json()).data.designated_version.version).toBe(2);
  } finally {
    await svc.stop();
    removeDir(svc.dataDir);
  }
});

it('storeFault maps storage faults to StoreUnavailable and leaves programming errors alone', () => {
  for (const code of [
    'SQLITE_FULL',
    'SQLITE_READONLY',
    'SQLITE_READONLY_DBMOVED',
    'SQLITE_IOERR_WRITE',
    'SQLITE_CANTOPEN',
    'SQLITE_BUSY',
  ]) {
    expect(storeFault(sqliteError(code))).toBeInstanceOf(StoreUnavailable);
  }
  for (const error of [sqliteError('SQLITE_CONSTRAINT_UNIQUE'), sqliteError('SQLITE_ERROR'), new TypeError('x')])
    expect(storeFault(error)).toBe(error);
});
