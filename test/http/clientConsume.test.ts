import { consume, type ApiEvent } from '#src/client';
import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS } from '../support/service';
import { eventually } from '../support/webhooks';

/** presets/client's consume(): fetch, handle in order, acknowledge what was handled, back off on failure. */
const svc = useApiSpecification();

const write = async (slug: string, n: number) =>
  expect((await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody({ seed: n }) })).status).toBe(200);
const feed = async (): Promise<ApiEvent[]> => (await (await svc.request('/api/v1/events?limit=1000')).json()).data;

it('hands every event to the handler in order, and again the one whose handler threw, then the rest', async () => {
  for (let i = 0; i < 7; i++) await write(`consumed-${i % 2}`, i);
  expect((await svc.request('/api/v1/consumer-groups/client-consumer', { method: 'PUT', json: { start: 'beginning' } })).status).toBe(201);
  const expected = (await feed()).map((e) => e.id);
  const calls: string[] = [];
  const handled: string[] = [];
  const errors: unknown[] = [];
  const consumer = consume(
    'client-consumer',
    async (event) => {
      calls.push(event.id);
      if (event.id === expected[2] && calls.filter((id) => id === event.id).length === 1) throw new Error('first try fails');
      handled.push(event.id);
    },
    {
      baseUrl: svc.url,
      fetch: svc.fetch,
      apiKey: KEYS.writer,
      max: 4,
      waitMs: 200,
      backoff: { initialMs: 10, maxMs: 50 },
      onError: (e) => errors.push(e),
    },
  );
  try {
    await eventually(async () => (handled.length >= expected.length ? true : undefined), 'every event handled');
  } finally {
    await consumer.stop();
  }
  expect(handled).toEqual(expected);
  expect(calls.filter((id) => id === expected[2])).toHaveLength(2);
  expect(errors).toEqual([expect.objectContaining({ message: 'first try fails' })]);
  const group = (await (await svc.request('/api/v1/consumer-groups/client-consumer')).json()).data;
  expect(group).toMatchObject({ lag: 0, lease: null, position: (await feed()).at(-1)!.position });
});

it('stopped in the middle of a long poll, leaves no lease behind', async () => {
  expect((await svc.request('/api/v1/consumer-groups/client-stopped', { method: 'PUT', json: { start: 'now' } })).status).toBe(201);
  const consumer = consume('client-stopped', async () => {}, { baseUrl: svc.url, fetch: svc.fetch, apiKey: KEYS.writer, waitMs: 10_000 });
  await new Promise((r) => setTimeout(r, 150));
  await consumer.stop();
  await new Promise((r) => setTimeout(r, 50));
  await write('after-stop', 1);
  await new Promise((r) => setTimeout(r, 100));
  const next = await svc.request('/api/v1/consumer-groups/client-stopped/fetch', { method: 'POST', json: {} });
  expect(next.status).toBe(200);
  expect((await next.json()).data.map((e: ApiEvent) => e.stream)).toEqual([expect.stringMatching(/-after-stop$/)]);
});
