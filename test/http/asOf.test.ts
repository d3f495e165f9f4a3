import { useApiSpecification } from '../support/apiSpecification';
import { chatBody } from '../support/service';

/**
 * `as_of`: a preset as it stood at a moment, folded from its events — the reads
 * (GET /presets/{slug}, its versions, one version) and resolve in the three formats and the three
 * ways of naming a preset. A preset, versions, a label move and a rollback, each at a known time,
 * read back at instants between them.
 */
const svc = useApiSpecification();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An instant strictly after the last write and strictly before the next one. */
const instant = async () => {
  await sleep(15);
  const at = new Date().toISOString();
  await sleep(15);
  return at;
};
const at: Record<string, string> = {};

beforeAll(async () => {
  const ok = async (res: Promise<Response>) => expect((await res).status).toBe(200);
  const version = (temperature: number) =>
    ok(svc.request('/api/v1/presets/bot/chat/completions', { method: 'POST', json: chatBody({ temperature }) }));
  at.before = await instant();
  await version(0.1);
  at.v1 = await instant();
  await version(0.2);
  at.v2 = await instant();
  await ok(svc.request('/api/v1/presets/bot/labels/production', { method: 'PUT', json: { version: 2 } }));
  at.labelled = await instant();
  await version(0.3);
  at.v3 = await instant();
  await ok(svc.request('/api/v1/presets/bot/labels/production', { method: 'PUT', json: { version: 3 } }));
  at.moved = await instant();
  await ok(svc.request('/api/v1/presets/bot/designated-version', { method: 'PUT', json: { version: 1 } }));
  at.rolledBack = await instant();
});

const get = async (path: string) => {
  const res = await svc.request(path);
  return { status: res.status, body: await res.json() };
};
const presetAt = async (moment: string) => {
  const { status, body } = await get(`/api/v1/presets/bot?as_of=${encodeURIComponent(moment)}`);
  expect(status).toBe(200);
  return {
    designated: body.data.designated_version.version,
    labels: body.data.labels,
    temperature: body.data.designated_version.config.temperature,
  };
};

describe('GET /api/v1/presets/{slug}?as_of=', () => {
  it('answers the preset as it stood at each instant: designated version and labels', async () => {
    expect(await presetAt(at.v1!)).toEqual({ designated: 1, labels: {}, temperature: 0.1 });
    expect(await presetAt(at.v2!)).toEqual({ designated: 2, labels: {}, temperature: 0.2 });
    expect(await presetAt(at.labelled!)).toEqual({ designated: 2, labels: { production: 2 }, temperature: 0.2 });
    expect(await presetAt(at.v3!)).toEqual({ designated: 3, labels: { production: 2 }, temperature: 0.3 });
    expect(await presetAt(at.moved!)).toEqual({ designated: 3, labels: { production: 3 }, temperature: 0.3 });
    expect(await presetAt(at.rolledBack!)).toEqual({ designated: 1, labels: { production: 3 }, temperature: 0.1 });
  });

  it('takes any RFC 3339 offset for the same instant', async () => {
    const utc = new Date(at.labelled!);
    const plus2 = new Date(utc.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await presetAt(plus2)).toEqual(await presetAt(at.labelled!));
  });

  it('is a 404 before the preset existed, for the preset, its versions and a version', async () => {
    for (const path of ['/api/v1/presets/bot', '/api/v1/presets/bot/versions', '/api/v1/presets/bot/versions/1']) {
      const { status, body } = await get(`${path}?as_of=${encodeURIComponent(at.before!)}`);
      expect(status).toBe(404);
      expect(body.error.message).toContain('bot');
    }
  });

  it('lists the versions that existed then, and none that came later', async () => {
    const then = await get(`/api/v1/presets/bot/versions?as_of=${encodeURIComponent(at.v2!)}`);
    expect(then.body).toMatchObject({ total_count: 2 });
    expect(then.body.data.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    const later = await get(`/api/v1/presets/bot/versions/3?as_of=${encodeURIComponent(at.v2!)}`);
    expect(later.status).toBe(404);
    const v3 = await get(`/api/v1/presets/bot/versions/3?as_of=${encodeURIComponent(at.v3!)}`);
    expect(v3.body.data.config.temperature).toBe(0.3);
  });

  it('refuses a moment that is not RFC 3339, in the error envelope, naming the parameter', async () => {
    for (const bad of ['yesterday', '2026-11-03', '2026-11-03T14:05:00', '2026-13-03T14:05:00Z']) {
      const { status, body } = await get(`/api/v1/presets/bot?as_of=${encodeURIComponent(bad)}`);
      expect(status).toBe(400);
      expect(body.error.metadata.errors[0].path).toBe('as_of');
    }
    const twice = await get(`/api/v1/presets/bot/versions?as_of=${encodeURIComponent(at.v1!)}&as_of=${encodeURIComponent(at.v2!)}`);
    expect(twice.status).toBe(400);
  });
});

describe('POST /api/v1/resolve/... with "as_of"', () => {
  const resolve = async (route: string, body: Record<string, unknown>) => {
    const res = await svc.request(`/api/v1/resolve/${route}`, { method: 'POST', json: body });
    return { status: res.status, body: await res.json() };
  };
  const temperatureOf = async (route: string, body: Record<string, unknown>) => {
    const { status, body: answer } = await resolve(route, body);
    expect(status).toBe(200);
    expect(answer.data.request).not.toHaveProperty('as_of');
    return { temperature: answer.data.request.temperature, version: answer.data.preset.version };
  };

  it('resolves the designated version as it was, in the three formats', async () => {
    const forms = [
      ['chat/completions', { model: '@preset/bot', messages: [{ role: 'user', content: 'hi' }] }],
      ['messages', { model: '@preset/bot', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }],
      ['responses', { model: '@preset/bot', input: 'hi' }],
    ] as const;
    for (const [route, body] of forms) {
      expect(await temperatureOf(route, { ...body, as_of: at.v3 })).toEqual({ temperature: 0.3, version: 3 });
      expect(await temperatureOf(route, { ...body, as_of: at.rolledBack })).toEqual({ temperature: 0.1, version: 1 });
    }
  });

  it('resolves a label to the version it named then, in each way of naming the preset', async () => {
    const msgs = [{ role: 'user', content: 'hi' }];
    expect(await temperatureOf('chat/completions', { model: '@preset/bot@production', messages: msgs, as_of: at.labelled })).toEqual({
      temperature: 0.2,
      version: 2,
    });
    expect(await temperatureOf('chat/completions', { model: 'a/b@preset/bot@production', messages: msgs, as_of: at.moved })).toEqual({
      temperature: 0.3,
      version: 3,
    });
    expect(await temperatureOf('messages', { preset: 'bot@production', model: 'a/b', messages: msgs, as_of: at.labelled })).toEqual({
      temperature: 0.2,
      version: 2,
    });
    // Before the label existed it names nothing: a 404, as for any missing label.
    expect((await resolve('chat/completions', { model: '@preset/bot@production', messages: msgs, as_of: at.v2 })).status).toBe(404);
    // @latest: the highest version that existed then.
    expect(await temperatureOf('responses', { model: '@preset/bot@latest', input: 'hi', as_of: at.v2 })).toEqual({
      temperature: 0.2,
      version: 2,
    });
  });

  it('is a 404 before the preset existed, and a 400 naming $.as_of for a bad moment', async () => {
    const msgs = [{ role: 'user', content: 'hi' }];
    expect((await resolve('chat/completions', { model: '@preset/bot', messages: msgs, as_of: at.before })).status).toBe(404);
    const bad = await resolve('chat/completions', { model: '@preset/bot', messages: msgs, as_of: 1700000000 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.metadata.errors[0].path).toBe('$.as_of');
  });
});
