import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '#src/auth/keysFile';
import { chatBody, removeDir, useTestService } from '../support/service';

/** A keys file holding only hashes works end to end; answers carry safe headers everywhere. */
const KEY = `pk_hashed_${randomUUID()}`;
let keysDir: string;
const svc = useTestService(() => {
  keysDir = mkdtempSync(join(tmpdir(), 'presets-hashkeys-'));
  const file = join(keysDir, 'keys.json');
  writeFileSync(
    file,
    JSON.stringify({
      keys: [
        { key_sha256: hashApiKey(KEY), user_id: 'hashed-user', workspace_id: randomUUID(), scopes: ['presets:read', 'presets:write'] },
      ],
    }),
  );
  return { API_KEYS_FILE: file };
});
afterAll(() => removeDir(keysDir));

it('a key known only by its SHA-256 writes and reads over HTTP; the key is in no log and not in the file', async () => {
  const created = await svc.request('/api/v1/presets/hashed/chat/completions', { key: KEY, method: 'POST', json: chatBody() });
  expect(created.status).toBe(200);
  expect((await created.json()).data.creator_user_id).toBe('hashed-user');
  expect((await svc.request('/api/v1/presets/hashed', { key: KEY })).status).toBe(200);
  expect((await svc.request('/api/v1/presets/hashed', { key: hashApiKey(KEY) })).status).toBe(401); // the hash is no key
  expect((await svc.request('/api/v1/presets/hashed', { key: `${KEY}x` })).status).toBe(401);
  expect(readFileSync(join(keysDir, 'keys.json'), 'utf8')).not.toContain(KEY);
  const logs = svc.logs.join('');
  expect(logs).toContain('"keyId":"' + hashApiKey(KEY).slice(0, 12));
  expect(logs).not.toContain(KEY);
});

it.each([
  ['GET', '/health/live', null, 200],
  ['GET', '/health/ready', null, 200],
  ['GET', '/api/v1/presets', KEY, 200],
  ['POST', '/api/v1/presets/headers/chat/completions', KEY, 200],
  ['POST', '/api/v1/presets/headers/messages', KEY, 400],
  ['GET', '/api/v1/presets/none', KEY, 404],
  ['GET', '/api/v1/presets', null, 401],
  ['DELETE', '/api/v1/presets/none/versions', KEY, 405], // DELETE /api/v1/presets/{slug} is a route now (archive)
] as const)('%s %s: JSON with charset, nosniff, no X-Powered-By', async (method, path, key, status) => {
  const res = await svc.request(path, {
    method,
    key,
    ...(method === 'POST' ? { json: path.endsWith('messages') ? { messages: [] } : chatBody() } : {}),
  });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-powered-by')).toBeNull();
  expect(res.headers.get('x-request-id')).toMatch(/.+/);
});
