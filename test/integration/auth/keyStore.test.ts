import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '#scripts/create-api-key';
import { hashApiKey, loadKeyRing } from '#src/auth/apiKeys';
import { ensureKeysFile } from '#src/auth/devKey';
import { appendKeyEntry, generateApiKey, newKey } from '#src/auth/keyStore';

const WS = '0b6f4a52-3c1d-4e8f-9a7b-6c5d4e3f2a10';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presets-keystore-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('generateApiKey', () => {
  it('makes distinct pk_ keys of 32 random bytes, usable as Bearer tokens', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
  });
});

describe('appendKeyEntry', () => {
  it('adds a working second key next to the dev key', async () => {
    let devKey = '';
    const path = await ensureKeysFile({ dataDir: dir, print: (l) => (devKey = /pk_\S+/.exec(l)?.[0] ?? devKey) });
    const second = newKey({ userId: 'carol', workspaceId: WS, scopes: ['presets:read'] });
    await appendKeyEntry(path, second.entry);

    const ring = await loadKeyRing(path);
    expect(ring.size).toBe(2);
    expect(ring.authenticate(devKey)).not.toBeNull();
    const carol = ring.authenticate(second.key);
    expect(carol).toMatchObject({ userId: 'carol', workspaces: [WS], keyId: second.keyId });
    expect([...carol!.scopes]).toEqual(['presets:read']);
    expect(await readFile(path, 'utf8')).not.toContain(second.key);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('creates the file (and its directory) when absent', async () => {
    const path = join(dir, 'sub', 'keys.json');
    const k = newKey({ userId: 'dave' });
    await appendKeyEntry(path, k.entry);
    expect((await loadKeyRing(path)).authenticate(k.key)).toMatchObject({ userId: 'dave' });
  });

  it('keeps other fields and changes nothing when the result would be invalid', async () => {
    const path = join(dir, 'keys.json');
    const k = newKey({ userId: 'erin', workspaceId: WS });
    await writeFile(path, JSON.stringify({ comment: 'ops', keys: [k.entry] }));
    const before = await readFile(path, 'utf8');

    await expect(appendKeyEntry(path, k.entry)).rejects.toThrow(/keys\[1\] is the same key as keys\[0\]/);
    await expect(appendKeyEntry(path, { ...newKey({ userId: 'x' }).entry, workspace_id: 'nope' })).rejects.toThrow(
      /keys\[1\]\.workspace_id must be a UUID/,
    );
    expect(await readFile(path, 'utf8')).toBe(before);

    await appendKeyEntry(path, newKey({ userId: 'frank' }).entry);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ comment: 'ops', keys: [{ user_id: 'erin' }, { user_id: 'frank' }] });
  });
});

describe('create-api-key CLI', () => {
  const run = async (argv: string[], env: Record<string, string | undefined> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
    return { code, out, err };
  };

  it('appends a key, prints it once on stdout and the entry without it on stderr', async () => {
    const file = join(dir, 'keys.json');
    const r = await run(['--user', 'gina', '--workspace', WS, '--scopes', 'presets:read', '--file', file]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    const key = r.out[0]!;
    expect(r.err.join('\n')).not.toContain(key);
    expect(r.err.join('\n')).toContain(hashApiKey(key));
    expect((await loadKeyRing(file)).authenticate(key)).toMatchObject({ userId: 'gina', workspaces: [WS] });
  });

  it('defaults the workspace to a new uuid and the file to $DATA_DIR/api-keys.json', async () => {
    const r = await run(['--user', 'hal'], { DATA_DIR: dir });
    expect(r.code).toBe(0);
    const caller = (await loadKeyRing(join(dir, 'api-keys.json'))).authenticate(r.out[0]!);
    expect(caller?.workspaces).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    // Every scope by default: consumer groups', the two of release control and the audit's too.
    expect([...caller!.scopes]).toEqual([
      'presets:read',
      'presets:write',
      'webhooks:manage',
      'events:consume',
      'keys:manage',
      'presets:release',
      'audit:read',
    ]);
  });

  it.each([
    [[], /--user is required/],
    [['--user', 'x', '--workspace', 'w1'], /--workspace must be a UUID/],
    [['--user', 'x', '--scopes', 'presets:read,presets:admin'], /unknown scope\(s\) presets:admin/],
    [['--user', 'x', '--bogus'], /Unknown option '--bogus'/],
  ])('rejects %p with usage', async (argv, message) => {
    const r = await run(argv as string[], { DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(message);
    expect(r.err.join('\n')).toContain('Usage: npm run keys:create');
    expect(r.out).toEqual([]);
  });
});
