import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStartArgs } from '#bench/lib';
import { HEAP_GROWING_PERCENT } from '#src/threads/heapFlags';
import { THREAD_HEAPS } from '#src/threads/thread';

const ROOT = join(__dirname, '..', '..', '..');
/** `npm start`'s command line. */
const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

/** The flag the service sets is one node accepts as an argument, the one way an operator can give another (docs/operations.md, Tuning). */
describe('heap growth flag', () => {
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

  it('is taken by node as an argument, and refused in NODE_OPTIONS (so the docs must not offer that)', () => {
    expect(execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")']).toString()).toBe('ok');
    expect(() => execFileSync(process.execPath, ['-e', '0'], { env: { ...process.env, NODE_OPTIONS: flag }, stdio: 'pipe' })).toThrow(
      /not allowed in NODE_OPTIONS/,
    );
  });
});

/**
 * A process started as `npm start` starts the service (built, in dist/ from the jest run's global
 * setup): its entry thread's young generation is as big as the start script says, and a worker's is
 * as big as THREAD_HEAPS says, not the entry thread's. Each thread makes garbage that survives a
 * while, as requests held across awaits do, until its young generation is at its largest, and
 * reports the size V8 gave it and its heap's limit.
 */
describe('heap sizes of a service started as npm start starts it', () => {
  const limits = THREAD_HEAPS.deliverer;
  const script = (setFlags: boolean) => `
const v8 = require('node:v8');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const MB = 2 ** 20;
const churn = () => {
  let kept = [], young = 0;
  for (let i = 0; i < 2e6; i++) {
    kept.push({ i, s: 'x' + i });
    if (kept.length > 200000) kept = kept.slice(100000);
    if (i % 20000 === 0) young = Math.max(young, v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
  }
  return { young: young / MB, limit: v8.getHeapStatistics().heap_size_limit / MB };
};
if (isMainThread) {
  ${setFlags ? `require(${JSON.stringify(join(ROOT, 'dist/src/threads/heapFlags.js'))}).setHeapFlags();` : ''}
  const entry = churn();
  const worker = new Worker(__filename, { resourceLimits: ${JSON.stringify(limits)} });
  worker.on('message', (w) => process.stdout.write(JSON.stringify({ entry, worker: w })));
} else parentPort.postMessage(churn());
`;
  type Sizes = { young: number; limit: number };
  const run = (setFlags: boolean, nodeArgs: string[] = []): { entry: Sizes; worker: Sizes } => {
    const file = join(tmpdir(), `heap-flags-${process.pid}-${setFlags}.js`);
    writeFileSync(file, script(setFlags));
    try {
      return JSON.parse(execFileSync(process.execPath, [...parseStartArgs(start), ...nodeArgs, file], { timeout: 60_000 }).toString());
    } finally {
      rmSync(file, { force: true });
    }
  };

  it('gives the entry thread 2 × 8 MB of young generation, and a worker its own (after the service has set its flags)', () => {
    const { entry, worker } = run(true);
    // A young generation is two semi-spaces (V8 rounds each up to its pages): at most 2 × 8 MB + a page.
    expect(entry.young).toBeGreaterThan(8);
    expect(entry.young).toBeLessThanOrEqual(16.5);
    expect(worker.young).toBeLessThanOrEqual(limits.maxYoungGenerationSizeMb + 0.5);
  });

  it('would give every worker the young generation of the entry thread without them (why they are set)', () => {
    expect(run(false).worker.young).toBeGreaterThan(limits.maxYoungGenerationSizeMb + 0.5);
  });

  it('leaves an old-generation size given to node to the entry thread, and each worker its own', () => {
    const { entry, worker } = run(true, ['--max-old-space-size=400']);
    expect(entry.limit).toBeGreaterThanOrEqual(400);
    // The limit counts the young generation too: 128 MB old + a few MB.
    expect(worker.limit).toBeLessThan(limits.maxOldGenerationSizeMb + 16);
  });
});

/**
 * `npm start` and the image start the service the same way, and the bench runs it as `npm start`
 * does: the HTTP thread's young generation at 8 MB semi-spaces (docs/performance.md).
 */
describe('how the service is started', () => {
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];

  it('gives the HTTP thread half the young generation V8 would, in npm start and in the image alike', () => {
    expect(parseStartArgs(start)).toEqual(['--max-semi-space-size=8']);
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...parseStartArgs(start), 'dist/src/main.js']);
  });
});
