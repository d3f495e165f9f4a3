/**
 * `npm run bench:audit [-- --compare DIR --rounds 5 --append-events 20000 --concurrency 32 --events 1000000 --verify-rounds 2]`
 * The audit's costs (docs/performance.md, "The audit"):
 * - the chain's append cost: `--compare DIR` is a built checkout from before the chain; rounds
 *   ALTERNATE between it and this one, each a fresh child process appending `--append-events`
 *   events from `--concurrency` writers through the embedded store (bench/auditAppend.ts);
 * - `audit:verify` over `--events` events (made through the event store, then checkpointed), as
 *   the built command in a child process: events/s and its peak RSS; with `--compare DIR`,
 *   `--verify-rounds` rounds alternated between DIR's command and this one on the same file;
 * - the same verify under a 96 MB heap, and the signed export of all of them streamed into a slow
 *   sink by the route's own generator (bench/auditExport.ts): its time and peak RSS.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { flags, median, ROOT, runNode, tempDir, WORKSPACE_ID } from './lib';
import { generateEvents } from './rebuild';
import { openSqliteEventStore } from '../src/eventstore/sqlite/store';
import { checkpointWorkspace } from '../src/audit/checkpoint';

const opts = flags({ compare: '', rounds: 5, 'append-events': 20_000, concurrency: 32, events: 1_000_000, 'verify-rounds': 2 });
const log = (line: string) => process.stderr.write(`bench:audit: ${line}\n`);
const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const node = runNode;

const appendRound = async (root: string) => {
  const dir = tempDir('audit-append');
  try {
    const r = await node([join(ROOT, 'dist/bench/auditAppend.js'), root, dir, String(opts['append-events']), String(opts.concurrency)]);
    if (r.code !== 0) throw new Error(`auditAppend (${root}) exited ${r.code}: ${r.err}`);
    const { events, seconds } = JSON.parse(r.out) as { events: number; seconds: number };
    return events / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const main = async () => {
  if (opts.compare && opts.rounds > 0) {
    const chained: number[] = [];
    const before: number[] = [];
    for (let round = 0; round < opts.rounds; round++) {
      const order = round % 2 === 0 ? (['chain', 'before'] as const) : (['before', 'chain'] as const);
      for (const which of order) {
        const rate = await appendRound(which === 'chain' ? ROOT : opts.compare);
        (which === 'chain' ? chained : before).push(rate);
        log(`round ${round + 1} ${which.padEnd(6)} ${f(rate)} appends/s`);
      }
    }
    const ratios = chained.map((c, i) => c / before[i]!);
    log(
      `append with the chain: median ${f(median(chained))} vs ${f(median(before))} appends/s before it: ${f(median(chained) / median(before), 3)}× ` +
        `(rounds ${ratios.map((r) => f(r, 3)).join(', ')})`,
    );
  }
  if (opts.events > 0) {
    const dir = tempDir('audit-verify');
    try {
      log(`writing ${f(opts.events)} events through the event store…`);
      const made = await generateEvents(dir, opts.events);
      const store = openSqliteEventStore({ file: join(dir, 'events.db'), writerThread: false });
      await checkpointWorkspace(store, WORKSPACE_ID, { actorUserId: 'bench', requestId: 'bench', now: new Date() });
      await store.close();
      log(`  ${f(made.seconds, 1)} s, ${f(made.bytes / 1e6)} MB, checkpointed`);
      const peakFile = join(dir, 'verify-peak');
      const verifyRound = async (root: string) => {
        rmSync(peakFile, { force: true });
        const started = process.hrtime.bigint();
        const r = await node(['-r', join(ROOT, 'dist/bench/peakRss.js'), join(root, 'dist/scripts/audit.js'), 'verify'], {
          DATA_DIR: dir,
          LOG_LEVEL: 'warn',
          BENCH_PEAK_FILE: peakFile,
        });
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (r.code !== 0) throw new Error(`audit:verify (${root}) exited ${r.code}: ${r.out}${r.err}`);
        const { peakKb } = JSON.parse(readFileSync(peakFile, 'utf8')) as { peakKb: number };
        return { rate: (opts.events + 1) / seconds, seconds, peakMb: peakKb / 1024, last: r.out.trim().split('\n').at(-1) };
      };
      const mine: number[] = [];
      const theirs: number[] = [];
      for (let round = 0; round < (opts.compare ? opts['verify-rounds'] : 1); round++) {
        const order = !opts.compare ? [ROOT] : round % 2 === 0 ? [ROOT, opts.compare] : [opts.compare, ROOT];
        for (const root of order) {
          const v = await verifyRound(root);
          (root === ROOT ? mine : theirs).push(v.rate);
          log(
            `audit:verify${root === ROOT ? '' : ' (compared)'}: ${f(opts.events + 1)} events in ${f(v.seconds, 1)} s = ${f(v.rate)} events/s, peak RSS ${f(v.peakMb)} MB`,
          );
          log(`  (${v.last})`);
        }
      }
      if (opts.compare)
        log(
          `audit:verify: median ${f(median(mine))} vs ${f(median(theirs))} events/s compared: ${f(median(mine) / median(theirs), 2)}× ` +
            `(rounds ${mine.map((m, i) => f(m / theirs[i]!, 2)).join(', ')})`,
        );

      // The same verify under a 96 MB heap: it finishes, so what it holds does not grow with the log.
      rmSync(peakFile, { force: true });
      const small = await node(
        ['--max-old-space-size=96', '-r', join(ROOT, 'dist/bench/peakRss.js'), join(ROOT, 'dist/scripts/audit.js'), 'verify'],
        {
          DATA_DIR: dir,
          LOG_LEVEL: 'warn',
          BENCH_PEAK_FILE: peakFile,
        },
      );
      const smallPeak = small.code === 0 ? (JSON.parse(readFileSync(peakFile, 'utf8')) as { peakKb: number }).peakKb : NaN;
      log(
        `audit:verify with --max-old-space-size=96: exit ${small.code}, peak RSS ${f(smallPeak / 1024)} MB (${small.out.trim().split('\n').at(-1)})`,
      );

      const exportPeak = join(dir, 'export-peak');
      const e = await node(['-r', join(ROOT, 'dist/bench/peakRss.js'), join(ROOT, 'dist/bench/auditExport.js'), dir, WORKSPACE_ID], {
        BENCH_PEAK_FILE: exportPeak,
      });
      if (e.code !== 0) throw new Error(`auditExport exited ${e.code}: ${e.err}`);
      const x = JSON.parse(e.out) as { lines: number; bytes: number; seconds: number };
      const { peakKb: exportKb } = JSON.parse(readFileSync(exportPeak, 'utf8')) as { peakKb: number };
      log(
        `export: ${f(x.lines - 1)} events, ${f(x.bytes / 1e6)} MB in ${f(x.seconds, 1)} s (${f((x.lines - 1) / x.seconds)} events/s), peak RSS ${f(exportKb / 1024)} MB`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
};

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
