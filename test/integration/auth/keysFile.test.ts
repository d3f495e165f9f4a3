import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey, loadKeyRing } from '#src/auth/apiKeys';

const WS = '6f1c2a3e-9b4d-4c1a-8e2f-0a1b2c3d4e5f';
const PLAIN = 'pk_plaintext-key-0123456789abcdefghij';
const HASHED = 'pk_hashed-key-zyxwvutsrqponmlkjihgfedcba';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'presets-auth-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const writeKeys = async (content: unknown): Promise<string> => {
  const path = join(dir, 'keys.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

const entry = (over: Record<string, unknown> = {}) => ({
  key: PLAIN,
  user_id: 'alice',
  workspace_id: WS,
  scopes: ['presets:read', 'presets:write'],
  ...over,
});

describe('loadKeyRing', () => {
  it('authenticates both plaintext and key_sha256 entries', async () => {
    const path = await writeKeys({
      keys: [entry(), { key_sha256: hashApiKey(HASHED).toUpperCase(), user_id: 'bob', workspace_id: WS, scopes: ['presets:read'] }],
    });
    const ring = await loadKeyRing(path);
    expect(ring.size).toBe(2);

    const alice = ring.authenticate(PLAIN);
    expect(alice).toMatchObject({ userId: 'alice', workspaces: [WS], keyId: hashApiKey(PLAIN).slice(0, 12) });
    expect([...alice!.scopes]).toEqual(['presets:read', 'presets:write']);

    const bob = ring.authenticate(HASHED);
    expect(bob).toMatchObject({ userId: 'bob', keyId: hashApiKey(HASHED).slice(0, 12) });
    expect(bob!.scopes.has('presets:write')).toBe(false);
  });

  it('rejects wrong and empty tokens', async () => {
    const ring = await loadKeyRing(await writeKeys({ keys: [entry()] }));
    expect(ring.authenticate(`${PLAIN}x`)).toBeNull();
    expect(ring.authenticate(PLAIN.slice(0, -1))).toBeNull();
    expect(ring.authenticate(hashApiKey(PLAIN))).toBeNull();
    expect(ring.authenticate('')).toBeNull();
  });

  const invalid: Array<[string, unknown, RegExp]> = [
    ['bad uuid', { keys: [entry({ workspace_id: 'not-a-uuid' })] }, /keys\[0\]\.workspace_id must be a UUID/],
    [
      'unknown scope',
      { keys: [entry({ scopes: ['presets:read', 'presets:admin'] })] },
      /keys\[0\]\.scopes\[1\] is an unknown scope "presets:admin"/,
    ],
    ['no scopes', { keys: [entry({ scopes: [] })] }, /keys\[0\]\.scopes must list at least one scope/],
    ['empty user', { keys: [entry({ user_id: '' })] }, /keys\[0\]\.user_id must be a non-empty string/],
    ['missing user', { keys: [entry({ user_id: undefined })] }, /keys\[0\]\.user_id is missing/],
    [
      'both key and key_sha256',
      { keys: [entry({ key_sha256: hashApiKey(PLAIN) })] },
      /keys\[0\] must have exactly one of "key" or "key_sha256"/,
    ],
    ['neither key nor key_sha256', { keys: [entry({ key: undefined })] }, /keys\[0\] must have exactly one/],
    ['duplicate (plain twice)', { keys: [entry(), entry({ user_id: 'bob' })] }, /keys\[1\] is the same key as keys\[0\]/],
    [
      'duplicate (plain and hashed)',
      { keys: [entry(), entry({ key: undefined, key_sha256: hashApiKey(PLAIN) })] },
      /keys\[1\] is the same key as keys\[0\]/,
    ],
    ['key in key_sha256', { keys: [entry({ key: undefined, key_sha256: PLAIN })] }, /keys\[0\]\.key_sha256 must be 64 hex characters/],
    ['key pasted as a scope', { keys: [entry({ scopes: [PLAIN] })] }, /keys\[0\]\.scopes\[0\] is an unknown scope \(known/],
    ['key with a space', { keys: [entry({ key: `${PLAIN} x` })] }, /keys\[0\]\.key must be a non-empty string of visible ASCII/],
    ['entries as bare strings', { keys: [PLAIN] }, /keys\[0\] must be an object/],
    ['keys not a list', { keys: PLAIN }, /keys must be a list of key entries/],
    ['no keys', { keys: [] }, /keys is empty/],
    ['not JSON', `{"keys":[{"key":"${PLAIN}",}]}`, /not valid JSON/],
  ];
  it.each(invalid)('rejects a file with %s, naming the entry but not the key', async (_name, content, message) => {
    const path = await writeKeys(content);
    const error = await loadKeyRing(path).then(
      () => null,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toMatch(message);
    expect(error!.message).toContain(path);
    expect(error!.message).not.toContain(PLAIN);
    expect(error!.message).not.toContain(PLAIN.slice(0, 12));
  });

  it('reports a missing file clearly', async () => {
    await expect(loadKeyRing(join(dir, 'nope.json'))).rejects.toThrow(/Cannot read API keys file .*nope\.json/);
  });
});
