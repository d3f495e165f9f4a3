import { useApiSpecification } from '../support/apiSpecification';
import { startReceiver, type Receiver } from '../support/receiver';
import { openSse, type SseClient } from '../support/sse';
import { chatBody, KEYS, WORKSPACE_A } from '../support/service';

/**
 * Tenants apart (issue 29's isolation, as a property): with many event streams and webhooks idle in
 * workspace B, workspace A's reads are all answered, each of A's writes reaches each of A's own
 * event streams once and in order, and none of B's subscribers is handed anything of A's. How fast
 * A's reads stay, the idle CPU and the lag are figures, not assertions: `npm run bench --
 * --isolation 1` measures them against their goals (docs/performance.md), with the service as a
 * child process on a machine given to the bench.
 */
jest.setTimeout(120_000);

const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', SSE_MAX_PER_KEY: '1000', SSE_MAX_CONNECTIONS: '2000' });
const IDLE_IN_B = 400;
const WEBHOOKS_IN_B = 30;
const STREAMS_IN_A = 100;
const WRITES_IN_A = 20;

const open = (key: string, after: string) =>
  openSse(`${svc.url}/api/v1/events?after=${after}`, { authorization: `Bearer ${key}` }, svc.fetch);
const eventFrames = async (client: SseClient, wanted: number) => (wanted === 0 ? [] : client.events(wanted, 30_000));

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

it("idle subscribers of one workspace leave another's reads answered; its events reach that workspace's streams once each, and only them", async () => {
  const head = async () => (await svc.eventStore.headPosition())?.toString() ?? '0';
  for (let i = 0; i < WEBHOOKS_IN_B; i++) {
    const res = await svc.request('/api/v1/webhooks', { method: 'POST', json: { url: `${receiver.url}?${i}` }, key: KEYS.otherWorkspace });
    expect(res.status).toBe(201);
  }
  const idle: SseClient[] = [];
  while (idle.length < IDLE_IN_B)
    idle.push(...(await Promise.all(Array.from({ length: 50 }, async () => open(KEYS.otherWorkspace, await head())))));
  for (const client of idle) expect(client.res.status).toBe(200);

  const from = await head();
  const streams = await Promise.all(Array.from({ length: STREAMS_IN_A }, () => open(KEYS.writer, from)));
  const written: string[] = [];
  for (let i = 0; i < WRITES_IN_A; i++) {
    expect((await svc.request(`/api/v1/presets/isolated-${i}/chat/completions`, { method: 'POST', json: chatBody() })).status).toBe(200);
    // A's reads, answered while B's subscribers wait.
    expect((await svc.request(`/api/v1/presets/isolated-${i}`)).status).toBe(200);
    const [event] = (await (await svc.request(`/api/v1/presets/isolated-${i}/events?limit=1`)).json()).data as Array<{ position: string }>;
    written.push(event!.position);
  }
  for (const stream of streams) {
    const frames = await eventFrames(stream, WRITES_IN_A);
    expect(frames.map((f) => f.id)).toEqual(written);
    expect(frames.every((f) => f.event === 'PresetCreated' && f.data!.includes(`"stream":"preset-${WORKSPACE_A}-isolated-`))).toBe(true);
  }
  // B's streams had heartbeats at most, and its webhooks nothing to deliver: give a straggler its chance first.
  await new Promise((r) => setTimeout(r, 300));
  const framesInB = await Promise.all(
    idle.map(async (client) => {
      const seen: string[] = [];
      for (let frame = await client.next(50).catch(() => null); frame; frame = await client.next(50).catch(() => null))
        if (frame.data !== undefined) seen.push(frame.data);
      return seen.length;
    }),
  );
  expect(framesInB.reduce((a, b) => a + b, 0)).toBe(0);
  expect(receiver.received).toEqual([]);
  for (const client of [...idle, ...streams]) client.close();
});
