import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENTS_FILE, READ_MODEL_FILE } from '#src/backends';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { presetStreamName } from '#src/presets/streamName';
import type { CliIo } from '#scripts/cli';
import { openMongoReadModel } from '#projections/readmodel/mongodb';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';
import { rebuildInto } from '#projections/rebuild';
import { openMongoRebuildTarget } from '#projections/rebuildTarget';
import { main as rebuild } from '#scripts/rebuild';
import { main as verify } from '#scripts/verify';
import { dump, makeHistory, projectLive, releaseHistory, WORKSPACES } from '../support/presetHistory';

/** A dump's text, key order included (revisions are bigints). */
const asText = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/** The two commands as an operator runs them, on the embedded stores, against the live projector's result. */
const [A] = WORKSPACES;
const run = async (main: (argv: string[], io: CliIo) => Promise<number>, dataDir: string, argv: string[] = []) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: { DATA_DIR: dataDir, LOG_LEVEL: 'silent' } });
  return { code, out, err };
};

describe('npm run rebuild and npm run verify (embedded SQLite)', () => {
  let dir: string;
  const liveCopy = () => join(dir, 'live-copy.db');
  const readModelFile = () => join(dir, READ_MODEL_FILE);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'presets-e2e-rebuild-'));
    const store = openSqliteEventStore({ file: join(dir, EVENTS_FILE), pollIntervalMs: 10 });
    await makeHistory(store);
    await releaseHistory(store); // keys streams, protections and proposals: one more preset, and streams that are no preset's
    const readModel = openSqliteReadModel({ file: readModelFile() });
    await projectLive(store, readModel);
    await readModel.close();
    await store.close();
    copyFileSync(readModelFile(), liveCopy()); // closed: the WAL is checkpointed into the file
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('verify finds nothing to report in what the live projector built', async () => {
    const { code, out, err } = await run(verify, dir);
    expect(err).toEqual([]);
    expect(out.filter((l) => l.startsWith('difference'))).toEqual([]);
    expect(out[out.length - 1]).toMatch(/^verify: \d+ events, 17 presets, \d+ versions: no differences$/);
    expect(code).toBe(0);
  });

  it('rebuild refuses while another process has the read model open', async () => {
    const held = new Database(readModelFile());
    held.pragma('journal_mode = WAL');
    try {
      const { code, err } = await run(rebuild, dir);
      expect(code).toBe(1);
      expect(err.join('\n')).toMatch(/is open in another process .*stop it/);
    } finally {
      held.close();
    }
    expect(readdirSync(dir).filter((f) => f.includes('.rebuild-'))).toEqual([]);
  });

  it('rebuild builds a fresh read model holding the same documents, and switches to it', async () => {
    const { code, out, err } = await run(rebuild, dir);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.some((l) => /^rebuild: done, \d+ events/.test(l))).toBe(true);
    expect(out[out.length - 1]).toMatch(/Start the service .* again/);
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith(READ_MODEL_FILE))
        .sort(),
    ).toEqual([READ_MODEL_FILE]); // no -wal, -shm, .rebuild-*
    const [before, after] = [openSqliteReadModel({ file: liveCopy() }), openSqliteReadModel({ file: readModelFile() })];
    try {
      const expected = await dump(before);
      expect(expected).toHaveLength(17);
      expect(await dump(after)).toEqual(expected);
      // The same text, key order included: a config as it was sent (integer-like keys in JavaScript's order).
      expect(asText(await dump(after))).toBe(asText(expected));
      // A templated version's fields too: its variables schema's keys as sent.
      const greeter = expected.find((p) => p.record?.view.slug === 'greeter')!;
      expect(JSON.stringify(greeter.versions[0]!.variables)).toBe(
        '{"type":"object","properties":{"tone":{"type":"string","enum":["warm","dry"]},"company":{"type":"string","description":"Whose customers"}},"required":["company"]}',
      );
      expect(greeter.versions[0]).toMatchObject({
        template_format: 'handlebars',
        messages: [{ role: 'user', content: 'Greet me on behalf of {{company}}.' }],
      });
      const bot = expected.find((p) => p.record?.view.slug === 'support-bot' && p.versions.length === 3)!;
      expect(JSON.stringify(bot.versions[1]!.config)).toBe(
        '{"model":"openai/gpt-4o","temperature":0.5,"tools":[{"type":"function","function":{"name":"f"}}],"logit_bias":{"9":1,"1234":5,"50256":-100}}',
      );
      expect(await after.checkpoint('presets')).toBe(await before.checkpoint('presets'));
    } finally {
      await before.close();
      await after.close();
    }
    expect((await run(verify, dir, ['--strict'])).code).toBe(0);
  });

  it('the built command folds in worker threads: the same documents, and v1 events upcast', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'presets-e2e-built-'));
    try {
      copyFileSync(join(dir, EVENTS_FILE), join(copy, EVENTS_FILE));
      const store = openSqliteEventStore({ file: join(copy, EVENTS_FILE) });
      const old = randomUUID();
      const meta = (actorUserId: string) => ({ requestId: randomUUID(), actorUserId, schemaVersion: 1 });
      const version = (n: number) => ({ id: `${old}-v${n}`, number: n, config: { model: 'm' }, systemPrompt: `S${n}` }); // v1: no creatorId
      await store.append(
        presetStreamName(old, 'legacy'),
        [
          {
            id: randomUUID(),
            type: 'PresetCreated',
            metadata: meta('alice'),
            data: {
              presetId: old,
              workspaceId: old,
              slug: 'legacy',
              name: 'legacy',
              creatorUserId: 'alice',
              version: version(1),
              occurredAt: '2025-01-01T00:00:00.000Z',
            },
          },
          {
            id: randomUUID(),
            type: 'PresetVersionAdded',
            metadata: meta('bob'),
            data: { presetId: old, version: version(2), occurredAt: '2025-01-02T00:00:00.000Z' },
          },
        ],
        'no_stream',
      );
      await store.close();
      const out = execFileSync(process.execPath, [join(__dirname, '../../dist/scripts/rebuild.js')], {
        env: { ...process.env, DATA_DIR: copy, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
      expect(out).toMatch(/\(\d+ worker threads\)/);
      expect(out).toMatch(/^rebuild: done, \d+ events/m);
      const [live, built] = [openSqliteReadModel({ file: liveCopy() }), openSqliteReadModel({ file: join(copy, READ_MODEL_FILE) })];
      try {
        expect(await dump(built)).toEqual(await dump(live));
        expect(asText(await dump(built))).toBe(asText(await dump(live)));
        expect((await built.listVersions(old, { offset: 0, limit: 10 })).items.map((v) => v.creator_id)).toEqual(['alice', 'bob']);
        expect((await built.getPreset(old, 'legacy'))?.view.designated_version.creator_id).toBe('bob');
      } finally {
        await live.close();
        await built.close();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('verify catches documents changed by hand, one line each, and exits 1', async () => {
    const db = new Database(readModelFile());
    db.prepare(
      `UPDATE presets SET doc = json_set(doc, '$.designated_version.system_prompt', 'edited') WHERE workspace_id = ? AND slug = 'support-bot'`,
    ).run(A);
    db.prepare(
      `DELETE FROM preset_versions WHERE version = 2 AND preset_id = (SELECT id FROM presets WHERE workspace_id = ? AND slug = 'summarise')`,
    ).run(A);
    db.close();
    const { code, out } = await run(verify, dir);
    expect(code).toBe(1);
    expect(out).toContain(
      `difference: workspace ${A} preset support-bot designated_version.system_prompt: expected "Be terse.", actual "edited"`,
    );
    expect(
      out.some((l) => l.startsWith(`difference: workspace ${A} preset summarise versions[2]: expected {`) && l.endsWith('actual (absent)')),
    ).toBe(true);
    expect(out[out.length - 1]).toMatch(/: 2 differences$/);
    // The built command verifies in worker threads, one share of the streams each: the same two lines.
    const built = spawnSync(process.execPath, [join(__dirname, '../../dist/scripts/verify.js')], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    expect(built.status).toBe(1);
    const lines = built.stdout.split('\n');
    expect(lines[0]).toMatch(/\(\d+ worker threads\)$/);
    expect(lines.filter((l) => l.startsWith('difference')).sort()).toEqual(out.filter((l) => l.startsWith('difference')).sort());
    expect(lines.filter(Boolean).pop()).toMatch(/: 2 differences$/);
    // and a rebuild repairs it
    expect((await run(rebuild, dir)).code).toBe(0);
    expect((await run(verify, dir)).code).toBe(0);
  });

  it('answers bad usage, bad configuration and a missing store with 2 and a clear message', async () => {
    expect((await run(verify, dir, ['--nope'])).code).toBe(2);
    expect((await run(rebuild, dir, ['--nope'])).code).toBe(2);
    const err: string[] = [];
    expect(await rebuild([], { out: () => {}, err: (l) => err.push(l), env: { DATA_DIR: dir, LOG_LEVEL: 'loud' } })).toBe(2);
    expect(err).toEqual([expect.stringMatching(/^configuration: .*LOG_LEVEL/)]);
    const empty = mkdtempSync(join(tmpdir(), 'presets-e2e-empty-'));
    try {
      expect(await run(verify, empty)).toMatchObject({
        code: 2,
        err: [expect.stringMatching(/there is no event store at .* \(is DATA_DIR right\?\)/)],
      });
      expect(await run(rebuild, empty)).toMatchObject({ code: 2, err: [expect.stringMatching(/there is no event store at/)] });
      copyFileSync(join(dir, EVENTS_FILE), join(empty, EVENTS_FILE));
      expect(await run(verify, empty)).toMatchObject({ code: 2, err: [expect.stringMatching(/there is no read model at/)] });
      expect(readdirSync(empty)).toEqual([EVENTS_FILE]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

// Runs against a real server only: `docker compose up -d mongo`, then MONGODB_URL=... npm run test:integration
const mongoUrl = process.env.MONGODB_URL;
(mongoUrl ? describe : describe.skip)('rebuild into MongoDB collections with a suffix, then rename (MONGODB_URL)', () => {
  it('switches to collections holding the same documents', async () => {
    const database = `presets_rebuild_${randomUUID().slice(0, 8)}`;
    const dir = mkdtempSync(join(tmpdir(), 'presets-e2e-mongo-'));
    const store = openSqliteEventStore({ file: join(dir, EVENTS_FILE), pollIntervalMs: 10 });
    try {
      await makeHistory(store);
      await releaseHistory(store);
      const live = await openMongoReadModel({ url: mongoUrl!, database });
      await projectLive(store, live);
      const expected = await dump(live);
      const target = await openMongoRebuildTarget(mongoUrl!, database);
      await rebuildInto(store, target.readModel, { log: () => {} });
      expect(await target.switchOver()).toHaveLength(1);
      expect(await dump(live)).toEqual(expected); // the same handle now reads the renamed collections
      await live.close();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      const client = await MongoClient.connect(mongoUrl!);
      await client.db(database).dropDatabase();
      await client.close();
    }
  });
});
