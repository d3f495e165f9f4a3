import { consume } from '../src/client';

/**
 * The consumer of the drain bench (bench/consumerGroups.ts), a process of its own as a real
 * consumer is: presets/client's `consume()` with `max: 1000`, a handler that checks each event
 * comes after the one before, stopped once `events` were handled. Prints one JSON line:
 * `{"events","seconds"}`, from the first fetch to the last acknowledgement.
 *
 * Usage: node dist/bench/drainConsumer.js <base url> <api key> <group> <events>
 */
const [baseUrl, apiKey, group, count] = process.argv.slice(2);
const events = Number(count);

const main = async () => {
  let handled = 0;
  let last = -1n;
  let failure: unknown;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const started = performance.now();
  const consumer = consume(
    group!,
    async (event) => {
      const position = BigInt(event.position);
      if (position <= last) throw new Error(`event ${event.position} after ${last}: out of order or again`);
      last = position;
      if (++handled === events) done();
    },
    {
      baseUrl: baseUrl!,
      apiKey: apiKey!,
      max: 1000,
      waitMs: 1000,
      onError: (error) => {
        failure ??= error;
        done();
      },
    },
  );
  await finished;
  await consumer.stop(); // acknowledges the last batch
  const seconds = (performance.now() - started) / 1000;
  if (failure) throw failure;
  process.stdout.write(`${JSON.stringify({ events: handled, seconds })}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
