/**
 * The in-process half of bench/split.ts, in a child process of its own:
 * `node dist/bench/splitClient.js <service url> <api key> <pairs> <block>`.
 *
 * A `presets/client` copy of the service's presets resolves `block` requests through the plain
 * label, then `block` through the split label (the order swapped every pair), `pairs` times, and
 * prints `{"plain": {...}, "split": {...}, "pairRatios": [...]}` on stdout: CPU per resolve
 * (process.cpuUsage, so garbage collection on other threads counts) summed over each label's blocks.
 *
 * Why a child and short blocks: a resolve costs ~3.5 µs, and the 5 % budget is ~175 ns. Measured
 * in the bench's own process after the HTTP rounds (autocannon's garbage, its timers) in blocks of
 * seconds, rounds moved by ±20 %; blocks of a few milliseconds alternated hundreds of times see the
 * same drift on both labels.
 */
import { createPresetClient } from '../src/client';
import { splitBody } from './split';

const [url, apiKey, pairsArg, blockArg] = process.argv.slice(2);
const pairs = Number(pairsArg ?? 400);
const block = Number(blockArg ?? 2048);

const main = async () => {
  const client = createPresetClient({ baseUrl: url!, apiKey: apiKey! });
  await client.ready();
  // Each request carries its own `user`, the split key: every split resolution hashes a new key.
  // Parsed from JSON, as a gateway's request bodies are: strings built by concatenation here would
  // be V8 cons-strings (13 characters and up), slower to read than any string a request brings.
  const bodies = {
    plain: Array.from({ length: block }, (_, i) => JSON.parse(JSON.stringify(splitBody('plain', `customer-${i}`))) as object),
    split: Array.from({ length: block }, (_, i) => JSON.parse(JSON.stringify(splitBody('split', `customer-${i}`))) as object),
  };
  const run = async (label: 'plain' | 'split') => {
    const list = bodies[label];
    const before = process.cpuUsage();
    for (let i = 0; i < block; i++) await client.resolve('chat_completions', list[i]);
    const used = process.cpuUsage(before);
    return used.user + used.system;
  };
  for (let i = 0; i < 20; i++) {
    await run('plain');
    await run('split');
  }
  const total = { plain: 0, split: 0 };
  const pairRatios: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? (['plain', 'split'] as const) : (['split', 'plain'] as const);
    const us = { plain: 0, split: 0 };
    for (const label of order) us[label] = await run(label);
    total.plain += us.plain;
    total.split += us.split;
    if (us.plain > 0) pairRatios.push(us.split / us.plain);
  }
  const resolves = pairs * block;
  process.stdout.write(
    JSON.stringify({
      resolves,
      plain: { cpuUs: total.plain / resolves },
      split: { cpuUs: total.split / resolves },
      pairRatios,
    }),
  );
  await client.close();
};

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
