import { runIsolationBench, type IsolationPhase } from '../../bench/isolation';
import { MAIN } from '../support/process';

/**
 * Tenants apart: workspace A holds 30,000 events; with 50 idle event streams and 30 idle webhooks in
 * an empty workspace B, then with 1,000 subscribers in B, A's reads are all answered; a new event
 * of A reaches each of 100 event streams of A once, and B's streams get nothing. The service runs
 * as a child process (the built dist/, as jest's globalSetup makes it). How fast A's reads stay,
 * the idle CPU and the lag are figures, not assertions: `npm run bench -- --isolation 1` measures
 * them against their goals (docs/performance.md), on a machine given to the bench alone.
 */
jest.setTimeout(240_000);

it("idle subscribers of one workspace leave another's reads answered; new events reach that workspace's streams, and only them", async () => {
  const lines: string[] = [];
  const result = await runIsolationBench(
    { events: 30_000, sse: 50, webhooks: 30, scaleTo: 1000, samples: 400, idleSeconds: 3, liveSse: 100, liveWrites: 20 },
    (line) => lines.push(line),
    MAIN,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  // Three phases whose reads of A were all answered 200 (runIsolationBench fails on any other answer).
  const [, some, many] = result.phases as [IsolationPhase, IsolationPhase, IsolationPhase];
  expect([some.sse, some.webhooks, many.sse + many.webhooks]).toEqual([50, 30, 1000]);
  expect(result.lag.missing).toBe(0);
  expect(result.lag.deliveries).toBe(100 * 20);
  expect(result.framesInB).toBe(0);
});
