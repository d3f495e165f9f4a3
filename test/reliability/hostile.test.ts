import { request } from 'node:http';
import { chatBody, useTestService } from '../support/service';

/** Hostile bodies and slugs: each gets a 4xx in the envelope (or is kept verbatim), never a crash. */
const svc = useTestService();

const postRaw = (slug: string, body: string | Buffer) =>
  svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
const events = async () => (await svc.eventStore.headPosition()) ?? 0n;
const expect400 = async (res: Response, message?: RegExp) => {
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error.code).toBe(400);
  if (message) expect(body.error.message).toMatch(message);
  return body.error;
};
afterEach(async () => {
  expect((await svc.request('/health/live')).status).toBe(200);
}); // still up

describe('nesting, size, numbers', () => {
  it.each([
    ['arrays', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['objects', '{"messages":[],"provider":' + '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_001)],
  ])('10,000 levels of nested %s: 400, not a stack overflow', async (_, text) => {
    const before = await events();
    await expect400(await postRaw('deep', text), /nested deeper than 128/);
    expect(await events()).toBe(before);
  });

  it('a 200,000-element array within the body limit is stored when valid, refused when not', async () => {
    const tools = Array.from({ length: 200_000 }, () => ({}));
    const ok = await svc.request('/api/v1/presets/huge/chat/completions', { method: 'POST', json: chatBody({ tools }) });
    expect(ok.status).toBe(200);
    expect((await ok.json()).data.designated_version.config.tools).toHaveLength(200_000);
    const bad = await svc.request('/api/v1/presets/huge/chat/completions', {
      method: 'POST',
      json: chatBody({ stop: Array(200_000).fill('x') }),
    });
    expect((await expect400(bad)).metadata.errors).toEqual([{ path: '$.stop', message: expect.stringMatching(/at most 4/) }]);
    await expect400(await postRaw('huge', JSON.stringify(Array(200_000).fill(0))));
    // 200,000 wrong elements: a 400 listing every one (~13 MB of problems for a 1.2 MB body: not capped yet).
    const many = await svc.request('/api/v1/presets/huge/chat/completions', {
      method: 'POST',
      json: chatBody({ tools: Array(200_000).fill(1) }),
    });
    expect((await expect400(many)).metadata.errors[0]).toEqual({ path: '$.tools[0]', message: 'expected object, got number 1' });
  });

  it.each([
    ['a validated field', '{"messages":[],"temperature":1e400}'],
    ['deep inside a free-form field', '{"messages":[],"provider":{"order":[{"weight":-1e400}]}}'],
  ])('1e400 in %s: 400 (numbers must be finite; it would be stored as null)', async (_, text) => {
    const before = await events();
    await expect400(await postRaw('infinite', text));
    expect(await events()).toBe(before);
  });

  it('invalid UTF-8: 400', async () => {
    const body = Buffer.concat([Buffer.from('{"messages":[],"model":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    await expect400(await postRaw('utf8', body), /UTF-8/);
  });
});

describe('prototype keys', () => {
  it.each([
    '{"__proto__":{"polluted":true},"messages":[]}',
    '{"messages":[],"provider":{"x":[{"__proto__":{"polluted":true}}]}}',
    '{"constructor":{"prototype":{"polluted":true}},"messages":[]}',
    '{"messages":[],"tools":[{"constructor":{"prototype":{"polluted":true}}}]}',
  ])('%s: 400, nothing stored, Object.prototype untouched', async (text) => {
    const before = await events();
    await expect400(await postRaw('proto', text), /forbidden key/);
    expect(await events()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('a plain "constructor" key is data: kept verbatim', async () => {
    const provider = { constructor: { name: 'x', order: ['a'] }, only: ['constructor'] };
    const res = await postRaw('ctor', JSON.stringify({ messages: [], provider, constructor: 'ignored: not a config field' }));
    expect(res.status).toBe(200);
    expect((await res.json()).data.designated_version.config).toEqual({ provider });
    const stored = await (await svc.request('/api/v1/presets/ctor/versions/1')).json();
    expect(stored.data.config.provider).toEqual(provider);
  });
});

it('duplicate keys: the last one wins, as JSON.parse decides (documented, not an error)', async () => {
  const res = await postRaw('dupes', '{"model":"first/model","messages":[],"temperature":0.1,"model":"last/model","temperature":0.9}');
  expect(res.status).toBe(200);
  const stored = await (await svc.request('/api/v1/presets/dupes/versions/1')).json();
  expect(stored.data.config).toEqual({ model: 'last/model', temperature: 0.9 });
});

/** The path exactly as written: fetch would resolve `..` before sending. */
const rawStatus = (method: string, path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(svc.url);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { authorization: 'Bearer pk_test_writer_a', 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify(chatBody()) : undefined);
  });

it.each(['..', '.', '%2E%2E', 'a%2Fb', '%2F', 'a%00b', '%00', 'x'.repeat(129), '-lead', 'sp%20ace', '%C3%A9'])(
  'slug %s: 400 on write and read, nothing stored',
  async (slug) => {
    const before = await events();
    for (const [method, path] of [
      ['POST', `/api/v1/presets/${slug}/chat/completions`],
      ['GET', `/api/v1/presets/${slug}`],
      ['GET', `/api/v1/presets/${slug}/versions`],
    ] as const) {
      const res = await rawStatus(method, path);
      expect([method, path, res.status]).toEqual([method, path, 400]);
      expect(JSON.parse(res.body).error.message).toBe('invalid slug');
    }
    expect(await events()).toBe(before);
  },
);
