import { useApiSpecification } from '../support/apiSpecification';
import { chatBody } from '../support/service';

/**
 * Conditional reads (RFC 9110): a preset, its versions and one version carry an ETag, and
 * If-None-Match naming it gets a 304 without a body, so a cache can revalidate what it holds
 * without reading it again. The request helper checks each answer against the OpenAPI document.
 */
const svc = useApiSpecification();
beforeAll(async () => {
  for (const temperature of [0.1, 0.2]) {
    expect((await svc.request('/api/v1/presets/cached/chat/completions', { method: 'POST', json: chatBody({ temperature }) })).status).toBe(
      200,
    );
  }
});

const get = (path: string, ifNoneMatch?: string) =>
  svc.request(path, { headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } });

describe.each([
  ['a preset', '/api/v1/presets/cached'],
  ['its versions', '/api/v1/presets/cached/versions'],
  ['one version', '/api/v1/presets/cached/versions/1'],
])('%s', (_what, path) => {
  it('answers 304 with the ETag and no body when If-None-Match names the current ETag, a list holding it, its weak form or *', async () => {
    const first = await get(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    for (const condition of [etag, `"nope", ${etag}`, `W/${etag}`, '*']) {
      const res = await get(path, condition);
      expect({ condition, status: res.status }).toEqual({ condition, status: 304 });
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
    }
  });

  it('answers 200 with the body when If-None-Match names another ETag', async () => {
    const res = await get(path, '"0", "x"');
    expect(res.status).toBe(200);
    expect((await res.json()).data).toBeDefined();
  });
});

describe('what an ETag stands for', () => {
  it('a preset and its versions list: the stream revision, so a new version makes the old ETag stale', async () => {
    expect((await get('/api/v1/presets/cached')).headers.get('etag')).toBe('"1"');
    expect((await get('/api/v1/presets/cached/versions')).headers.get('etag')).toBe('"1"');
    expect(
      (await svc.request('/api/v1/presets/cached/chat/completions', { method: 'POST', json: chatBody({ temperature: 0.3 }) })).status,
    ).toBe(200);
    const preset = await get('/api/v1/presets/cached', '"1"');
    expect(preset.status).toBe(200);
    expect((await preset.json()).data.designated_version.version).toBe(3);
    const versions = await get('/api/v1/presets/cached/versions', '"1"');
    expect(versions.status).toBe(200);
    expect((await versions.json()).total_count).toBe(3);
    expect((await get('/api/v1/presets/cached/versions', '"2"')).status).toBe(304);
  });

  it('a version: its id, which stays as it is whatever else changes', async () => {
    const version = await (await get('/api/v1/presets/cached/versions/1')).json();
    const etag = (await get('/api/v1/presets/cached/versions/1')).headers.get('etag');
    expect(etag).toBe(`"${version.data.id}"`);
    expect((await svc.request('/api/v1/presets/cached', { method: 'PATCH', json: { description: 'changed' } })).status).toBe(200);
    expect((await get('/api/v1/presets/cached/versions/1', etag!)).status).toBe(304);
  });

  it('an unknown preset or version is a 404 whatever the condition', async () => {
    expect((await get('/api/v1/presets/absent', '*')).status).toBe(404);
    expect((await get('/api/v1/presets/cached/versions/9', '*')).status).toBe(404);
  });
});

describe('the list', () => {
  it('says in Feed-Position the feed position it reflects every event up to', async () => {
    const res = await get('/api/v1/presets');
    const position = res.headers.get('feed-position');
    expect(position).toMatch(/^\d+$/);
    const events = (await (await get('/api/v1/events?limit=1000')).json()).data as Array<{ position: string }>;
    // Every event stored so far was projected before this list was read.
    expect(BigInt(position!)).toBeGreaterThanOrEqual(BigInt(events[events.length - 1]!.position));
  });
});

describe('the bytes of a read', () => {
  it('a preset read again and again (from the document cache) answers the bytes the write answered, with their UTF-8 length', async () => {
    const messages = [
      { role: 'system', content: 'Réponds en français, brièvement — 日本語も可 😀' },
      { role: 'user', content: 'Hi' },
    ];
    const written = await svc.request('/api/v1/presets/bytes/chat/completions', { method: 'POST', json: chatBody({ messages }) });
    expect(written.status).toBe(200);
    const text = await written.text();
    for (let i = 0; i < 3; i++) {
      const read = await get('/api/v1/presets/bytes');
      expect(read.status).toBe(200);
      expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = await read.text();
      expect(body).toBe(text);
      expect(Number(read.headers.get('content-length'))).toBe(Buffer.byteLength(body, 'utf8'));
      expect(JSON.stringify(JSON.parse(body))).toContain(messages[0]!.content);
    }
  });
});
