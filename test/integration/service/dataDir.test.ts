import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeDir, startTestService } from '#support/service';

/**
 * The data directory holds every preset and the webhooks' signing secrets: the service makes it
 * readable by its own user alone, and its database files (with SQLite's -wal and -shm) too, and
 * says so at start when an existing directory is open to others.
 */
const modeOf = (path: string) => statSync(path).mode & 0o777;
let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'presets-datadir-'));
});
afterEach(() => removeDir(parent));

it('creates the data directory 0700 and its database files 0600', async () => {
  const dataDir = join(parent, 'data');
  const svc = await startTestService({}, dataDir);
  try {
    expect(modeOf(dataDir)).toBe(0o700);
    const files = ['events.db', 'readmodel.db', 'webhooks.db'].flatMap((f) => [f, `${f}-wal`, `${f}-shm`]).map((f) => join(dataDir, f));
    const present = files.filter((f) => existsSync(f));
    expect(present.length).toBeGreaterThanOrEqual(3);
    for (const f of present) expect([f, modeOf(f)]).toEqual([f, 0o600]);
    expect(svc.logs.some((l) => l.includes('DATA_DIR can be read by other users'))).toBe(false);
  } finally {
    await svc.stop();
  }
});

it('warns at start about an existing directory that others can read, and narrows its database files', async () => {
  const dataDir = join(parent, 'open');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  const svc = await startTestService({}, dataDir);
  try {
    const warning = svc.logs.map((l) => JSON.parse(l)).find((l) => l.msg.includes('DATA_DIR can be read by other users'));
    expect(warning).toMatchObject({ level: 40, mode: '755' });
    expect(modeOf(join(dataDir, 'events.db'))).toBe(0o600);
  } finally {
    await svc.stop();
  }
});
