/**
 * One round of the chain's append cost (bench/audit.ts): `node dist/bench/auditAppend.js <root> <dir> <events> <concurrency>`
 * appends `events` events, one per append, from `concurrency` writers at once (as concurrent HTTP
 * writes do: group commits of about that many), through the embedded event store built in `root`
 * (this checkout, or one from before the chain), with its writer thread. Prints
 * `{"events","seconds"}` on stdout.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { EventStoreAdapter } from '../src/eventstore/eventStore';
import { BODIES } from './bodies';

const [root, dir, eventsArg, concurrencyArg] = process.argv.slice(2);
const events = Number(eventsArg);
const concurrency = Number(concurrencyArg);

const main = async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the store of the checkout under test, this one or another
  const { openSqliteEventStore } = require(join(root!, 'dist', 'src', 'eventstore', 'sqlite', 'store')) as {
    openSqliteEventStore: (o: { file: string }) => EventStoreAdapter;
  };
  const store = openSqliteEventStore({ file: join(dir!, 'events.db') });
  const configs = BODIES.map((b) => JSON.parse(b) as Record<string, unknown>);
  const metadata = { requestId: 'bench', actorUserId: 'bench', sourceFormat: 'chat_completions', schemaVersion: 2 };
  let next = 0;
  const writer = async (w: number) => {
    const stream = `preset-00000000-0000-4000-8000-000000000000-w${w}`;
    for (let revision = -1n; next < events; revision++) {
      const n = next++;
      const data = {
        presetId: 'p',
        version: {
          id: randomUUID(),
          number: Number(revision) + 2,
          config: configs[n % configs.length],
          systemPrompt: 'Be terse.',
          creatorId: 'bench',
        },
        occurredAt: new Date().toISOString(),
      };
      await store.append(
        stream,
        [{ id: randomUUID(), type: 'PresetVersionAdded', data, metadata }],
        revision < 0n ? 'no_stream' : revision,
      );
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, (_, w) => writer(w)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await store.close();
  process.stdout.write(`${JSON.stringify({ events, seconds })}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
