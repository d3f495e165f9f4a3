import { runCrashTest } from '#scripts/crash-test';

/**
 * The short form of `npm run test:crash`: the real service, 4 writer clients, killed with SIGKILL
 * 3 times in ~12 s and restarted on the same data directory. Every acknowledged write must survive
 * (event store and read model), versions stay gapless and unique, the read model equals a fresh
 * fold (projections/verify.ts, strict), and neither API key (plaintext or hashed-only) ever reaches the output.
 */
jest.setTimeout(90_000);

it('loses no acknowledged write across 3 SIGKILLs under 4 concurrent writers', async () => {
  const report = await runCrashTest({ kills: 3, seconds: 12, clients: 4, slugs: 4 });
  expect(report.problems.slice(0, 20)).toEqual([]);
  expect(report.acknowledged).toBeGreaterThan(20);
  expect(report.events).toBeGreaterThanOrEqual(report.acknowledged);
  expect(report.verified.events).toBe(report.events); // verify folded every event
  expect(report.restartMs).toHaveLength(3 + 2);
});
