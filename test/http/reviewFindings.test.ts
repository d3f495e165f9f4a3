import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';
import { webhookHelpers } from '../support/webhooks';

/**
 * Findings of the security review that are about hostile input to the HTTP API: each answered 500
 * (with a stack in the log) before, and is now a 4xx in the error envelope that logs no error.
 */
const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

const errorLines = () => svc.logs.filter((l) => JSON.parse(l).level >= 50);

describe('/docs assets are looked up by their own names only', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    '/docs/%s is a 404, with no error logged',
    async (name) => {
      const before = errorLines().length;
      const res = await svc.request(`/docs/${name}`, { key: null });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ code: 404, message: expect.stringContaining(name) });
      expect(errorLines().slice(before)).toEqual([]);
    },
  );

  it('still serves the assets it has', async () => {
    expect((await svc.request('/docs/swagger-ui.css', { key: null })).status).toBe(200);
  });
});

describe('positions past the largest the store can hold (2^63 - 1 here) are a 400 naming where', () => {
  const MAX = ((1n << 63n) - 1n).toString();
  const PAST = (1n << 63n).toString();
  const HUGE = '9'.repeat(40);

  it.each([
    ['after', `/api/v1/events?after=${PAST}`, {}],
    ['after', `/api/v1/events?after=${HUGE}`, {}],
    ['before', `/api/v1/events?direction=backwards&before=${PAST}`, {}],
    ['Last-Event-ID', '/api/v1/events', { accept: 'text/event-stream', 'last-event-id': PAST }],
    ['after', `/api/v1/events?after=${PAST}`, { accept: 'text/event-stream' }],
  ])('%s in %s', async (path, url, headers) => {
    const before = errorLines().length;
    const res = await svc.request(url, { headers });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.metadata.errors).toEqual([{ path, message: expect.stringMatching(/at most 9223372036854775807/) }]);
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('the largest one is an ordinary position (nothing after it yet)', async () => {
    const res = await svc.request(`/api/v1/events?after=${MAX}`);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual([]);
  });

  it('a webhook replay after one is a 400 at $.after, and the checkpoint stays', async () => {
    const { createHook, getHook } = webhookHelpers(() => svc);
    const hook = await createHook({ url: 'http://127.0.0.1:9/hook' });
    const res = await svc.request(`/api/v1/webhooks/${hook.id}/replay`, { method: 'POST', json: { after: PAST }, key: KEYS.writer });
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors).toEqual([{ path: '$.after', message: expect.stringMatching(/at most/) }]);
    expect((await getHook(hook.id)).checkpoint).toBe(hook.checkpoint);
  });
});
