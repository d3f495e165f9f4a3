import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKeyRing } from '#src/auth/apiKeys';
import { ensureKeysFile } from '#src/auth/devKey';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presets-devkey-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const KEY = /pk_[A-Za-z0-9_-]{43}/g;

describe('ensureKeysFile', () => {
  it('creates one dev key whose printed value authenticates and whose file holds no plaintext', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const lines: string[] = [];
    const path = await ensureKeysFile({ dataDir, print: (l) => lines.push(l) });
    expect(path).toBe(join(dataDir, 'api-keys.json'));

    const printed = lines.join('\n').match(KEY) ?? [];
    expect(printed).toHaveLength(1);
    const key = printed[0]!;
    expect(lines.join('\n')).toContain('npm run keys:create -- --workspace <uuid> --user <id>');

    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toMatch(/"key"\s*:/);
    const file = JSON.parse(text) as { keys: Array<Record<string, unknown>> };
    expect(file.keys).toHaveLength(1);
    expect(file.keys[0]).toMatchObject({
      user_id: expect.stringMatching(/^user_/),
      scopes: ['presets:read', 'presets:write', 'webhooks:manage', 'events:consume', 'keys:manage', 'presets:release', 'audit:read'],
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dataDir)).toEqual(['api-keys.json']); // no temp file left behind

    const ring = await loadKeyRing(path);
    expect(ring.size).toBe(1);
    const caller = ring.authenticate(key);
    expect(caller).toMatchObject({ userId: file.keys[0]!.user_id, workspaces: [file.keys[0]!.workspace_id] });
    expect(caller!.scopes.has('presets:write')).toBe(true);
  });

  it('does not create another key or print again on a second call', async () => {
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    const path = await ensureKeysFile({ dataDir: dir, print });
    const before = await readFile(path, 'utf8');
    const count = lines.length;

    expect(await ensureKeysFile({ dataDir: dir, print })).toBe(path);
    expect(lines).toHaveLength(count);
    expect(await readFile(path, 'utf8')).toBe(before);
  });

  it('creates exactly one key when two calls race', async () => {
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    const paths = await Promise.all([ensureKeysFile({ dataDir: dir, print }), ensureKeysFile({ dataDir: dir, print })]);
    expect(paths[0]).toBe(paths[1]);
    const printed = lines.join('\n').match(KEY) ?? [];
    expect(printed).toHaveLength(1);
    expect((await loadKeyRing(paths[0])).authenticate(printed[0]!)).not.toBeNull();
  });

  it('returns an explicit file as is, without creating anything', async () => {
    const explicit = join(dir, 'mine.json');
    await writeFile(explicit, '{"keys":[]}');
    const print = jest.fn();
    expect(await ensureKeysFile({ apiKeysFile: explicit, dataDir: dir, print })).toBe(explicit);
    expect(print).not.toHaveBeenCalled();
    expect(await readdir(dir)).toEqual(['mine.json']);
  });

  it('fails clearly when an explicit file does not exist', async () => {
    const missing = join(dir, 'missing.json');
    const print = jest.fn();
    await expect(ensureKeysFile({ apiKeysFile: missing, dataDir: dir, print })).rejects.toThrow(
      `API keys file ${missing} (API_KEYS_FILE) does not exist`,
    );
    expect(print).not.toHaveBeenCalled();
    expect(await readdir(dir)).toEqual([]);
  });
});
