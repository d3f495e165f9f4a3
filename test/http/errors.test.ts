import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';
import { presetStreamName } from '#src/presets/streamName';

const svc = useApiSpecification({ BODY_LIMIT_BYTES: '4096' });

/** Every error answers in the envelope, with nothing internal in it. */
const expectError = async (res: Response, status: number) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('x-request-id')).toMatch(/.+/);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.metadata).toEqual(expect.any(Object));
  expect(JSON.stringify(body)).not.toMatch(/\/work\/|node_modules|at .*\.ts:\d+|Error:/);
  return body.error as { code: number; message: string; metadata: Record<string, unknown> };
};

const storedEvents = (slug: string) => svc.eventStore.read(presetStreamName(WORKSPACE_A, slug));
const post = (slug: string, json: unknown, init: { key?: string | null; headers?: Record<string, string> } = {}) =>
  svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json, ...init });

describe('401: missing, malformed or unknown key', () => {
  it.each([
    ['no header', {}],
    ['another scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a bearer without token', { authorization: 'Bearer ' }],
    ['an unknown key', { authorization: 'Bearer pk_unknown' }],
  ])('%s', async (_, headers) => {
    const res = await svc.request('/api/v1/presets', { key: null, headers });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expectError(res, 401);
  });

  it('applies to writes too, and stores nothing', async () => {
    await expectError(await post('unauth', chatBody(), { key: 'pk_wrong' }), 401);
    expect(await storedEvents('unauth')).toEqual([]);
  });
});

describe('403: a key without the scope', () => {
  it('a read-only key cannot POST, and nothing is stored', async () => {
    const error = await expectError(await post('scoped', chatBody(), { key: KEYS.readerOnly }), 403);
    expect(error.metadata).toEqual({ required_scope: 'presets:write' });
    expect(await storedEvents('scoped')).toEqual([]);
  });
  it('a write-only key cannot GET', async () => {
    await expectError(await svc.request('/api/v1/presets', { key: KEYS.writerOnly }), 403);
  });
});

describe('400: not a valid request of its format', () => {
  it('lists every problem with its JSON path, and stores nothing', async () => {
    const error = await expectError(
      await post('invalid', { messages: [{ content: 'no role' }], temperature: 3, top_p: 'high', metadata: { k: 'x'.repeat(513) } }),
      400,
    );
    const paths = (error.metadata.errors as Array<{ path: string }>).map((e) => e.path).sort();
    expect(paths).toEqual(['$.messages[0].role', '$.metadata.k', '$.temperature', '$.top_p']);
    expect(await storedEvents('invalid')).toEqual([]);
    await expectError(await svc.request('/api/v1/presets/invalid'), 404);
  });
  it.each([
    ['not JSON', '{"model": "a",'],
    ['JSON that is not an object', '[1,2,3]'],
    ['a __proto__ key', '{"messages":[],"provider":{"__proto__":{"polluted":true}}}'],
  ])('%s', async (_, raw) => {
    await expectError(
      await svc.request('/api/v1/presets/bad-json/chat/completions', {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
    expect(await storedEvents('bad-json')).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('lists at most 100 problems, saying the list is truncated, for a hostile list of wrong items', async () => {
    const error = await expectError(await post('many-wrong', chatBody({ tools: Array.from({ length: 500 }, (_, i) => i) })), 400);
    expect(error.metadata.errors).toHaveLength(100);
    expect(error.metadata.truncated).toBe(true);
    expect((error.metadata.errors as Array<{ path: string }>)[99]!.path).toBe('$.tools[99]');
  });
  it('says the list is complete when it is', async () => {
    const error = await expectError(await post('one-wrong', chatBody({ temperature: -1 })), 400);
    expect(error.metadata).toEqual({ errors: [{ path: '$.temperature', message: expect.any(String) }], truncated: false });
  });
  it('a responses body with store other than false', async () => {
    const res = await svc.request('/api/v1/presets/store-true/responses', { method: 'POST', json: { model: 'a/b', store: true } });
    const error = await expectError(res, 400);
    expect((error.metadata.errors as Array<{ path: string }>)[0]!.path).toBe('$.store');
  });
  it.each([
    ['129 characters', 'a'.repeat(129)],
    ['an encoded slash', 'a%2Fb'],
    ['a NUL', 'a%00b'],
    ['a leading dot', '.hidden'],
    ['a space', 'a%20b'],
  ])('a slug with %s', async (_, slug) => {
    await expectError(await post(slug, chatBody()), 400);
    await expectError(await svc.request(`/api/v1/presets/${slug}`), 400);
  });
  it('accepts a slug of exactly 128 URL-safe characters', async () => {
    const slug = `a${'b-._~'.repeat(25)}xy`;
    expect(slug).toHaveLength(128);
    expect((await post(slug, chatBody())).status).toBe(200);
  });
  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'limit=1&limit=2'])('paging %s', async (query) => {
    await expectError(await svc.request(`/api/v1/presets?${query}`), 400);
  });
});

describe('404, 405, 413, 415', () => {
  it('404 for an unknown route and an unknown preset', async () => {
    await expectError(await svc.request('/api/v1/nothing-here'), 404);
    await expectError(await svc.request('/api/v1/presets/never-created'), 404);
    await expectError(await svc.request('/api/v1/presets/never-created/versions'), 404);
    await expectError(await svc.request('/api/v1/presets/never-created/versions/1'), 404);
  });
  it('405 with Allow for a known path and the wrong method', async () => {
    const res = await svc.request('/api/v1/presets/x/chat/completions', { method: 'GET' });
    expect(res.headers.get('allow')).toContain('POST');
    await expectError(res, 405);
  });
  it('413 past the body limit, and nothing stored', async () => {
    await expectError(await post('too-big', chatBody({ messages: [{ role: 'system', content: 'x'.repeat(5000) }] })), 413);
    expect(await storedEvents('too-big')).toEqual([]);
  });
  it('413 also without a Content-Length (chunked)', async () => {
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify(chatBody({ pad: 'y'.repeat(5000) }))));
        c.close();
      },
    });
    const res = await svc.request('/api/v1/presets/chunked/chat/completions', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectError(res, 413);
  });
  it.each([
    ['text/plain', '{}'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/json; charset=latin1', '{}'],
  ])('415 for %s', async (type, raw) => {
    await expectError(
      await svc.request('/api/v1/presets/typed/chat/completions', { method: 'POST', body: raw, headers: { 'content-type': type } }),
      415,
    );
    expect(await storedEvents('typed')).toEqual([]);
  });
  it.each(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'])(
    'JSON sent as %s is accepted',
    async (type) => {
      const slug = `typed-${type.replace(/[^a-z0-9]+/gi, '-')}`;
      const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify(chatBody()),
        headers: { 'content-type': type },
      });
      expect(res.status).toBe(200);
      expect((await storedEvents(slug)).length).toBe(1);
    },
  );
});

describe('tenancy', () => {
  it('another workspace cannot see a preset, and the same slug there is a different preset', async () => {
    const mine = await (await post('shared-name', chatBody())).json();
    await expectError(await svc.request('/api/v1/presets/shared-name', { key: KEYS.otherWorkspace }), 404);
    const list = await (await svc.request('/api/v1/presets', { key: KEYS.otherWorkspace })).json();
    expect(list.data.map((p: { slug: string }) => p.slug)).not.toContain('shared-name');
    const theirs = await (await post('shared-name', chatBody(), { key: KEYS.otherWorkspace })).json();
    expect(theirs.data.id).not.toBe(mine.data.id);
    expect(theirs.data.designated_version.version).toBe(1);
    const mineAgain = await (await svc.request('/api/v1/presets/shared-name')).json();
    expect(mineAgain.data).toEqual(mine.data);
  });
});

describe('health checks need no key', () => {
  it('live and ready', async () => {
    expect((await svc.request('/health/live', { key: null })).status).toBe(200);
    const ready = await svc.request('/health/ready', { key: null });
    expect(ready.status).toBe(200);
    expect((await ready.json()).status).toBe('ready');
  });
});
