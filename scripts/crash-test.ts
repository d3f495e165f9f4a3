import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openSqliteEventStore } from '../src/eventstore/sqlite/store';
import { parsePresetStreamName } from '../src/presets/streamName';
import { openSqliteReadModel } from '../projections/readmodel/sqlite';
import { verifyReadModel } from '../projections/verify';
import { call, freePort, spawnService, stopChild, waitReady, writeChildKeys, type Child } from './serviceProcess';

/**
 * Crash test: the real service (`node dist/src/main.js`) under concurrent writers, killed with
 * SIGKILL at random moments and restarted on the same DATA_DIR. Afterwards every acknowledged
 * (2xx) write must be in the event store and in the read model, versions must be gapless and
 * unique, verify (projections/verify.ts, strict) must find the read model equal to a fresh fold of
 * the events, and no key may be in the service's output.
 * `npm run test:crash` runs the full form; test/reliability/crash.test.ts a short one.
 */
export interface CrashOptions {
  kills: number;
  seconds: number;
  clients: number;
  slugs: number;
  progress?: (line: string) => void;
}
interface Ack {
  slug: string;
  version: number;
  versionId: string;
}

export const runCrashTest = async (o: CrashOptions) => {
  const log = o.progress ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'presets-crash-'));
  const keys = writeChildKeys(dataDir);
  const base = `http://127.0.0.1:${await freePort()}`;
  const env = { PORT: base.split(':')[2]!, DATA_DIR: dataDir, API_KEYS_FILE: keys.file };
  const outputs: Array<() => string> = [];
  const restartMs: number[] = [];
  const start = async (): Promise<Child> => {
    const c = spawnService(env);
    outputs.push(c.output);
    restartMs.push(await waitReady(base, c));
    return c;
  };
  const began = Date.now();
  const hardDeadline = began + o.seconds * 3_000 + 60_000;
  const slugs = Array.from({ length: o.slugs }, (_, i) => `crash-${i}`);
  const acks: Ack[] = [];
  const counts = { attempts: 0, ok202: 0, conflicts: 0, connectionErrors: 0, unexpected: {} as Record<number, number> };
  let child = await start();
  let writing = true;

  const writer = async (n: number) => {
    const key = n % 2 === 0 ? keys.plain : keys.hashed; // half the clients use the hashed-only key
    for (let i = 0; writing && i < 1_000_000 && Date.now() < hardDeadline; i++) {
      const slug = slugs[Math.floor(Math.random() * slugs.length)]!;
      const json = { model: 'crash/model', seed: n * 1_000_000 + i, messages: [{ role: 'system', content: `client ${n}` }] };
      counts.attempts++;
      try {
        const a = await call(base, 'POST', `/api/v1/presets/${slug}/chat/completions`, { key, json });
        if (a.status === 200)
          acks.push({ slug, version: a.json.data.designated_version.version, versionId: a.json.data.designated_version.id });
        else if (a.status === 202) {
          counts.ok202++;
          acks.push({ slug, version: a.json.data.version, versionId: a.json.data.version_id });
        } else if (a.status === 409) counts.conflicts++;
        else counts.unexpected[a.status] = (counts.unexpected[a.status] ?? 0) + 1;
      } catch {
        counts.connectionErrors++; // the process is down: the write may or may not have happened
        await sleep(20);
      }
    }
  };
  const writers = Array.from({ length: o.clients }, (_, n) => writer(n));
  const interval = (o.seconds * 1000) / (o.kills + 1);
  for (let k = 0; k < o.kills; k++) {
    await sleep(interval * (0.5 + Math.random())); // a random moment, not in step with the writers
    child.proc.kill('SIGKILL');
    await child.exited;
    log(`kill ${k + 1}/${o.kills} after ${((Date.now() - began) / 1000).toFixed(1)} s, ${acks.length} writes acknowledged`);
    child = await start();
  }
  await sleep(interval / 2);
  writing = false;
  await Promise.all(writers);

  // A clean stop, then the final restart: readiness means the read model caught up with everything.
  const exitCodes = [(await stopChild(child)).code];
  child = await start();
  const problems: string[] = [];
  for (const [status, n] of Object.entries(counts.unexpected)) problems.push(`${n} answers with status ${status}`);
  const perSlug = checkEvents(dataDir, acks, problems);
  await checkOverHttp(base, keys.plain, acks, perSlug, problems);
  exitCodes.push((await stopChild(child)).code);
  if (exitCodes.some((c) => c !== 0)) problems.push(`graceful stops exited with ${exitCodes.join(', ')}`);
  const verified = await verifyStopped(dataDir, problems);
  const output = outputs.map((o) => o()).join('');
  for (const key of [keys.plain, keys.hashed]) if (output.includes(key)) problems.push('an API key appears in the service output');
  const events = [...perSlug.values()].reduce((s, m) => s + m.size, 0);
  if (problems.length === 0) rmSync(dataDir, { recursive: true, force: true });
  return {
    seconds: (Date.now() - began) / 1000,
    kills: o.kills,
    clients: o.clients,
    acknowledged: acks.length,
    events,
    verified,
    ...counts,
    restartMs,
    outputBytes: output.length,
    dataDir,
    problems,
  };
};

/** `npm run verify --strict`'s check on the stopped service's files: read model = fold of the events. */
const verifyStopped = async (dataDir: string, problems: string[]) => {
  const eventStore = openSqliteEventStore({ file: join(dataDir, 'events.db') });
  const readModel = openSqliteReadModel({ file: join(dataDir, 'readmodel.db') });
  try {
    const r = await verifyReadModel(eventStore, readModel, { strict: true });
    problems.push(...r.differences.slice(0, 50));
    if (r.behind + r.lagging + r.movedOn > 0)
      problems.push(`verify: ${r.behind} events behind, ${r.lagging} lagging, ${r.movedOn} moved on`);
    return { events: r.events, presets: r.presets, versions: r.versions };
  } finally {
    await Promise.all([eventStore.close(), readModel.close()]);
  }
};

/** Every ack is stored with its version id; per stream, versions are 1..n in revision order. */
const checkEvents = (dataDir: string, acks: Ack[], problems: string[]) => {
  const db = new Database(join(dataDir, 'events.db'), { readonly: true, fileMustExist: true });
  const rows = db.prepare('SELECT stream, revision, data FROM events ORDER BY position').all() as Array<{
    stream: string;
    revision: number;
    data: string;
  }>;
  db.close();
  const perSlug = new Map<string, Map<number, string>>();
  for (const row of rows) {
    const version = (JSON.parse(row.data) as { version?: { number: number; id: string } }).version;
    const slug = parsePresetStreamName(row.stream)!.slug;
    const versions = perSlug.get(slug) ?? new Map<number, string>();
    perSlug.set(slug, versions);
    if (!version || version.number !== row.revision + 1 || versions.has(version.number))
      problems.push(`${row.stream}@${row.revision}: version ${version?.number} out of order or doubled`);
    else versions.set(version.number, version.id);
  }
  const seen = new Set<string>();
  for (const a of acks) {
    if (seen.has(`${a.slug}/${a.version}`)) problems.push(`${a.slug} v${a.version} acknowledged twice`);
    seen.add(`${a.slug}/${a.version}`);
    if (perSlug.get(a.slug)?.get(a.version) !== a.versionId)
      problems.push(`${a.slug} v${a.version} was acknowledged but is not in the event store`);
  }
  return perSlug;
};

/** Every ack is readable over HTTP, and each preset lists exactly versions 1..n. */
const checkOverHttp = async (base: string, key: string, acks: Ack[], perSlug: Map<string, Map<number, string>>, problems: string[]) => {
  const queue = [...acks];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let a = queue.pop(); a; a = queue.pop()) {
        const r = await call(base, 'GET', `/api/v1/presets/${a.slug}/versions/${a.version}`, { key });
        if (r.status !== 200 || r.json.data.id !== a.versionId) problems.push(`${a.slug} v${a.version}: ${r.status} from the read model`);
      }
    }),
  );
  for (const [slug, versions] of perSlug) {
    const listed: number[] = [];
    for (let offset = 0; offset < 100_000; offset += 100) {
      const page = await call(base, 'GET', `/api/v1/presets/${slug}/versions?offset=${offset}&limit=100`, { key });
      listed.push(...(page.json?.data ?? []).map((v: { version: number }) => v.version));
      if ((page.json?.data ?? []).length < 100) break;
    }
    if (listed.join() !== [...versions.keys()].sort((x, y) => x - y).join())
      problems.push(`${slug}: read model lists ${listed.length} versions, the store holds ${versions.size}`);
  }
};

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '60' },
      clients: { type: 'string', default: '4' },
      slugs: { type: 'string', default: '5' },
    },
  });
  runCrashTest({
    kills: Number(values.kills),
    seconds: Number(values.seconds),
    clients: Number(values.clients),
    slugs: Number(values.slugs),
    progress: (l) => console.log(l),
  }).then(
    (report) => {
      console.log(JSON.stringify(report, null, 2));
      console.log(report.problems.length === 0 ? 'crash test passed' : `crash test FAILED (data kept in ${report.dataDir})`);
      process.exitCode = report.problems.length === 0 ? 0 : 1;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
