/**
 * Memory against the number of presets: for each size (10,000 and 1,000,000 by default), that many
 * presets of one version each are written through the event store, the read model is rebuilt from
 * them, and one service process takes the same read and version load as at scale (`scale.ts`).
 * What may grow with the data is only what the service bounds by configuration; the target allows
 * the largest size's peak RSS to exceed the smallest's by no more than those bounds. Each size's
 * start time is measured too: from the service's spawn to its first 200 of /health/ready.
 */
/** A service on this many presets or fewer answers /health/ready within START_GOAL_SECONDS. */
export const START_GOAL_PRESETS = 1_000_000;
export const START_GOAL_SECONDS = 5;
import { rmSync } from 'node:fs';
import { DEFAULT_CACHE_BYTES } from '../src/http/presetCache';
import { CACHE_KIB } from '../src/sqlite/connection';
import { tempDir } from './lib';
import { generateEvents, runRebuild } from './rebuild';
import { runAtScale, type ScaleRow } from './scale';

/**
 * The caches that fill with data, whatever its size: SQLite's page cache on each of the service's
 * five connections (the writer's, the event store's and the read model's on the HTTP thread, the
 * event store's and the read model's on the projector's) and the WAL checkpointer's two
 * (256 KiB each), and the 1 MiB cache of preset documents. The command handler's LRU of folded
 * states holds version ids only.
 */
export const GROWTH_ALLOWANCE_MB = (5 * CACHE_KIB * 1024 + 2 * 256 * 1024 + DEFAULT_CACHE_BYTES) / 1e6;

export interface GrowthRun {
  presets: number;
  writeSeconds: number;
  rebuildSeconds: number;
  rows: ScaleRow[];
  peakRssMb: number;
  /** From the spawn of the service on this many presets to its first 200 of /health/ready. */
  startSeconds: number;
}
export interface GrowthResult {
  runs: GrowthRun[];
  growthMb: number;
  allowanceMb: number;
}

export const runGrowth = async (
  sizes: number[],
  o: { duration: number; warmup?: number; connections: number },
  log: (line: string) => void,
): Promise<GrowthResult> => {
  const runs: GrowthRun[] = [];
  for (const presets of sizes) {
    const dir = tempDir(`growth-${presets}`);
    try {
      log(`growth: writing ${presets.toLocaleString('en-US')} presets (one event each)…`);
      const written = await generateEvents(dir, presets, 1);
      const rebuilt = await runRebuild(dir, presets, presets, { timeoutSeconds: 1800 });
      const rows = await runAtScale(dir, presets, o);
      const run = {
        presets,
        writeSeconds: written.seconds,
        rebuildSeconds: rebuilt.seconds,
        rows,
        peakRssMb: Math.max(...rows.map((r) => r.peakRssMb)),
        startSeconds: rows[0]!.startSeconds,
      };
      runs.push(run);
      log(
        `growth: ${presets.toLocaleString('en-US')} presets (written in ${written.seconds.toFixed(0)} s, rebuilt in ${rebuilt.seconds.toFixed(0)} s), ready ${run.startSeconds.toFixed(2)} s after its start, peak RSS ${run.peakRssMb.toFixed(0)} MB (${rows.map((r) => `${r.scenario} ${r.rps.toFixed(0)} req/s`).join(', ')})`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const growthMb = runs.length > 1 ? runs[runs.length - 1]!.peakRssMb - runs[0]!.peakRssMb : 0;
  return { runs, growthMb, allowanceMb: GROWTH_ALLOWANCE_MB };
};

/** `--growth 10000,1000000`: the sizes, ascending; `--growth 0` skips it. */
export const growthSizes = (flag: string | number): number[] =>
  String(flag)
    .split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0)
    .sort((a, b) => a - b);
