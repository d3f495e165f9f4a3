/**
 * The rebuild scenario: N events written DIRECTLY through the event-store interface
 * (openSqliteEventStore().append, thousands of appends per group commit), made by the real
 * `decide`/`evolve`, then the read model rebuilt from them by `dist/scripts/rebuild.js` in a child
 * process: events/s and its peak RSS.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as E from 'fp-ts/Either';
import { EVENTS_FILE, READ_MODEL_FILE } from '../src/backends';
import { openSqliteEventStore } from '../src/eventstore/sqlite/store';
import { toDraft } from '../src/formats';
import { decide, evolve, initialState, type AddPresetVersion, type PresetState } from '../src/presets/decider';
import { eventMetadata, toNewEvent } from '../src/events/envelope';
import { presetStreamName } from '../src/presets/streamName';
import { BODIES } from './bodies';
import { ROOT, WORKSPACE_ID } from './lib';

export const EVENTS_PER_PRESET = 10;
const BATCH = 5000;
const REBUILD_SCRIPT = 'dist/scripts/rebuild.js';
const VERIFY_SCRIPT = 'dist/scripts/verify.js';

/**
 * Appends `total` events: presets p0…p(total/eventsPerPreset − 1), created in the first pass, then
 * one version each per pass, so consecutive positions belong to different presets (the rebuild's
 * worst case: each page of events touches thousands of distinct documents).
 */
export const generateEvents = async (
  dir: string,
  total: number,
  eventsPerPreset = EVENTS_PER_PRESET,
): Promise<{ seconds: number; presets: number; bytes: number }> => {
  const started = process.hrtime.bigint();
  const store = openSqliteEventStore({ file: join(dir, EVENTS_FILE), maxBatch: BATCH });
  const presets = Math.ceil(total / eventsPerPreset);
  const drafts = BODIES.map((b) => {
    const d = toDraft('chat_completions', JSON.parse(b));
    if (E.isLeft(d)) throw new Error(`bench body is not valid: ${JSON.stringify(d.left)}`);
    return d.right;
  });
  const states: PresetState[] = new Array<PresetState>(presets).fill(initialState());
  let written = 0;
  for (let pass = 0; written < total; pass++) {
    for (let start = 0; start < presets && written < total; start += BATCH) {
      const appends: Array<Promise<unknown>> = [];
      for (let i = start; i < Math.min(start + BATCH, presets) && written < total; i++, written++) {
        const slug = `p${i}`;
        const draft = drafts[(i + pass) % drafts.length]!;
        const command: AddPresetVersion = {
          type: 'AddPresetVersion',
          data: { workspaceId: WORKSPACE_ID, slug, config: draft.config, systemPrompt: draft.systemPrompt },
          metadata: {
            requestId: randomUUID(),
            actorUserId: 'bench',
            sourceFormat: 'chat_completions',
            now: new Date(),
            newPresetId: randomUUID(),
            newVersionId: randomUUID(),
          },
        };
        const decision = decide(command, states[i]!);
        if (E.isLeft(decision)) throw new Error(decision.left.message);
        const event = decision.right[0]!;
        states[i] = evolve(states[i]!, event);
        appends.push(
          store.append(
            presetStreamName(WORKSPACE_ID, slug),
            [toNewEvent(randomUUID(), event, eventMetadata(command.metadata))],
            pass === 0 ? 'no_stream' : BigInt(pass - 1),
          ),
        );
      }
      await Promise.all(appends);
    }
  }
  await store.close();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, presets, bytes: statSync(join(dir, EVENTS_FILE)).size };
};

export interface RebuildResult {
  command: string;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  peakRssMb: number;
  cpuUsPerEvent: number;
}

/** Runs a built script of `root` on DATA_DIR `dir` in a child process, under bench/peakRss.ts. */
const runBuilt = async (dir: string, relative: string, root: string, timeoutSeconds: number, name: string) => {
  const script = join(root, relative);
  if (!existsSync(script)) throw new Error(`${script} is missing: run npm run build`);
  const peakFile = join(dir, `${name}-peak`);
  const started = process.hrtime.bigint();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((res) => {
    const child = spawn(process.execPath, ['-r', join(ROOT, 'dist/bench/peakRss.js'), script], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn', BENCH_PEAK_FILE: peakFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const keep = (c: Buffer) => {
      out = (out + c.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      out += `\nkilled after ${timeoutSeconds} s`;
      child.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    child.once('exit', (c) => {
      clearTimeout(timer);
      res({ code: c, output: out });
    });
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`${script} exited with ${code}:\n${output}`);
  const { peakKb, cpuMs } = JSON.parse(readFileSync(peakFile, 'utf8')) as { peakKb: number; cpuMs: number };
  return { script, command: `node ${root === ROOT ? relative : script}`, seconds, output, peakRssMb: (peakKb * 1024) / 1e6, cpuMs };
};

/** Runs the rebuild into a fresh read model (readmodel.db removed first) and checks what it built. */
/** `root`: the checkout whose built rebuild runs (another one with `--compare`). */
export const runRebuild = async (
  dir: string,
  total: number,
  presets: number,
  { timeoutSeconds = 600, root = ROOT } = {},
): Promise<RebuildResult> => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, READ_MODEL_FILE + suffix), { force: true });
  const run = await runBuilt(dir, REBUILD_SCRIPT, root, timeoutSeconds, 'rebuild');
  const db = new Database(join(dir, READ_MODEL_FILE), { readonly: true });
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const [docs, versions] = [count('SELECT COUNT(*) AS n FROM presets'), count('SELECT COUNT(*) AS n FROM preset_versions')];
  db.close();
  if (docs !== presets || versions !== total)
    throw new Error(`${run.script} built ${docs} presets and ${versions} versions, expected ${presets} and ${total}`);
  return {
    command: run.command,
    events: total,
    seconds: run.seconds,
    eventsPerSecond: total / run.seconds,
    peakRssMb: run.peakRssMb,
    cpuUsPerEvent: (run.cpuMs * 1000) / total,
  };
};

/**
 * `npm run verify` (`dist/scripts/verify.js`) over the read model a rebuild made: it must fold every
 * event and find no difference. Its events/s, peak RSS and CPU per event, as a rebuild's.
 */
export const runVerify = async (dir: string, total: number, presets: number, { timeoutSeconds = 600, root = ROOT } = {}) => {
  const run = await runBuilt(dir, VERIFY_SCRIPT, root, timeoutSeconds, 'verify');
  const summary = `verify: ${total} events, ${presets} presets, ${total} versions: no differences`;
  if (!run.output.includes(summary)) throw new Error(`${run.script} did not say "${summary}":\n${run.output.slice(-500)}`);
  return {
    command: run.command,
    events: total,
    seconds: run.seconds,
    eventsPerSecond: total / run.seconds,
    peakRssMb: run.peakRssMb,
    cpuUsPerEvent: (run.cpuMs * 1000) / total,
  } satisfies RebuildResult;
};

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The report's verify lines: its row of the table (medians; peak RSS the highest), the goals
 * (≥ 100,000 events/s, peak RSS ≤ 300 MB), and, with --compare, the round-by-round ratios.
 */
export const verifyLines = (runs: RebuildResult[], compared: RebuildResult[], f: (n: number, digits?: number) => string) => {
  if (runs.length === 0) return { table: [], compared: [], median: undefined };
  const m = {
    eventsPerSecond: median(runs.map((r) => r.eventsPerSecond)),
    seconds: median(runs.map((r) => r.seconds)),
    peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
    cpuUsPerEvent: median(runs.map((r) => r.cpuUsPerEvent)),
    command: runs[0]!.command,
  };
  const table = [
    `verify: ${f(m.eventsPerSecond)} events/s (${f(m.seconds, 1)} s, median), peak RSS ${f(m.peakRssMb)} MB, ${f(m.cpuUsPerEvent)} µs CPU/event, by \`${m.command}\``,
  ];
  const lines =
    compared.length === 0
      ? []
      : [
          `verify this / compared: ${f(m.eventsPerSecond / median(compared.map((r) => r.eventsPerSecond)), 2)}× events/s ` +
            `(rounds ${runs.map((r, i) => (compared[i] ? `${f(r.eventsPerSecond / compared[i]!.eventsPerSecond, 2)}×` : '—')).join(', ')}), ` +
            `CPU/event ${f(m.cpuUsPerEvent / median(compared.map((r) => r.cpuUsPerEvent)), 2)}×, peak RSS ${f(m.peakRssMb)} vs ${f(Math.max(...compared.map((r) => r.peakRssMb)))} MB`,
        ];
  return { table, compared: lines, median: m };
};
