import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS } from '../support/service';

/**
 * A fetch that acknowledges the batch before it (`"ack"`, as the ack's body): one request and one
 * durable write a batch. Every event still comes once, in the feed's order; a refused
 * acknowledgement leases nothing; an acknowledgement with nothing new to lease is saved before
 * the long poll. The feed (GET /api/v1/events) is the record each answer is compared with.
 */
jest.setTimeout(60_000);

const svc = useApiSpecification();

interface Event {
  id: string;
  stream: string;
  position: string;
  data: unknown;
}
interface Batch {
  data: Event[];
  lease: { id: string; first_position: string; last_position: string; count: number } | null;
}

const write = async (slug: string, json: Record<string, unknown> = {}) => {
  const res = await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', key: KEYS.writer, json: chatBody(json) });
  expect(res.status).toBe(200);
};
const put = (name: string, json: unknown = {}) => svc.request(`/api/v1/consumer-groups/${name}`, { method: 'PUT', json, key: KEYS.writer });
const fetchBatch = (name: string, json: unknown = {}) =>
  svc.request(`/api/v1/consumer-groups/${name}/fetch`, { method: 'POST', json, key: KEYS.writer });
const feed = async (): Promise<Event[]> => (await (await svc.request('/api/v1/events?limit=1000', { key: KEYS.writer })).json()).data;
const group = async (name: string) => (await (await svc.request(`/api/v1/consumer-groups/${name}`, { key: KEYS.writer })).json()).data;

it('hands out every event once, in order, each fetch acknowledging the batch before it; the last one leaves the group at the end', async () => {
  expect((await put('chained', { filter: { slug_prefix: 'fa-chain-' }, start: 'now' })).status).toBe(201);
  // Text of every width in UTF-8: full batches are made ahead as bytes (src/http/fetchAnswer.ts).
  for (let i = 0; i < 9; i++) await write(`fa-chain-${i % 4}`, { seed: i, messages: [{ role: 'system', content: `é✓😀 ${i}` }] });
  const expected = (await feed()).filter((e) => /-fa-chain-/.test(e.stream));
  expect(expected).toHaveLength(9);
  const seen: Event[] = [];
  let lease: Batch['lease'] = null;
  for (;;) {
    const res = await fetchBatch('chained', { max: 2, ...(lease ? { ack: { lease_id: lease.id } } : {}) });
    expect(res.status).toBe(200);
    const batch: Batch = await res.json();
    seen.push(...batch.data);
    if (batch.data.length === 0) {
      expect(batch.lease).toBeNull();
      break;
    }
    lease = batch.lease;
  }
  expect(seen).toEqual(expected); // the same events, shown the same, in the same order
  expect(await group('chained')).toMatchObject({ lag: 0, lease: null, position: expected.at(-1)!.position });
});

it('saves the acknowledgement before waiting for new events, and then leases what comes', async () => {
  expect((await put('ack-then-wait', { filter: { slug_prefix: 'fa-wait' }, start: 'now' })).status).toBe(201);
  await write('fa-wait');
  const first: Batch = await (await fetchBatch('ack-then-wait')).json();
  expect(first.data).toHaveLength(1);
  const polling = fetchBatch('ack-then-wait', { wait_ms: 10_000, ack: { lease_id: first.lease!.id } });
  await new Promise((r) => setTimeout(r, 200));
  // While the fetch waits, the group is acknowledged and holds no lease.
  expect(await group('ack-then-wait')).toMatchObject({ position: first.data[0]!.position, lease: null });
  await write('fa-wait', { seed: 2 });
  const next: Batch = await (await polling).json();
  expect(next.data.map((e) => e.id)).toEqual(
    (await feed())
      .filter((e) => /-fa-wait$/.test(e.stream))
      .slice(1)
      .map((e) => e.id),
  );
});

it('acknowledges part of a batch by position: the rest comes again in the same answer', async () => {
  expect((await put('fa-partial', { filter: { slug_prefix: 'fa-partial' }, start: 'now' })).status).toBe(201);
  for (let i = 0; i < 3; i++) await write('fa-partial', { seed: i });
  const batch: Batch = await (await fetchBatch('fa-partial')).json();
  expect(batch.data).toHaveLength(3);
  const again: Batch = await (
    await fetchBatch('fa-partial', { ack: { lease_id: batch.lease!.id, position: batch.data[0]!.position } })
  ).json();
  expect(again.data.map((e) => e.id)).toEqual(batch.data.slice(1).map((e) => e.id));
});

it('refuses an acknowledgement as /ack would, and then leases nothing', async () => {
  expect((await put('fa-refused', { filter: { slug_prefix: 'fa-refused' }, start: 'now', lease_ms: 1000 })).status).toBe(201);
  for (let i = 0; i < 2; i++) await write('fa-refused', { seed: i });

  const noLease = await fetchBatch('fa-refused', { ack: { lease_id: 'never-leased' } });
  expect(noLease.status).toBe(409);
  expect((await noLease.json()).error.metadata.reason).toBe('lease_lost');
  expect((await group('fa-refused')).lease).toBeNull(); // nothing leased by the refused fetch

  const batch: Batch = await (await fetchBatch('fa-refused', { max: 1 })).json();
  const outside = await fetchBatch('fa-refused', { ack: { lease_id: batch.lease!.id, position: '999999999' } });
  expect(outside.status).toBe(400);
  expect((await group('fa-refused')).lease).toMatchObject({ id: batch.lease!.id }); // still the same lease

  const empty = await fetchBatch('fa-refused', { ack: {} });
  expect(empty.status).toBe(400);
  expect((await empty.json()).error.metadata.errors).toEqual([expect.objectContaining({ path: '$.ack' })]);

  // The lease expired and went to another consumer: the first one's acknowledgement is refused.
  await new Promise((r) => setTimeout(r, 1100));
  const other: Batch = await (await fetchBatch('fa-refused', { max: 1 })).json();
  expect(other.data.map((e) => e.id)).toEqual(batch.data.map((e) => e.id));
  const lost = await fetchBatch('fa-refused', { ack: { lease_id: batch.lease!.id } });
  expect(lost.status).toBe(409);
  expect((await lost.json()).error.metadata.reason).toBe('lease_lost');
  expect((await group('fa-refused')).lease).toMatchObject({ id: other.lease!.id });
});
