import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyLog } from '#src/audit/verify';
import { EVENTS_FILE } from '#src/backends';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { createPresetCommandHandler } from '#src/presets/handler';
import { presetStreamName } from '#src/presets/streamName';
import { main as audit } from '#scripts/audit';
import type { CliIo } from '#scripts/cli';
import { startTestService } from '#support/service';

/**
 * A data directory written by the release before the hash chain (test/fixtures/pre-chain-log, made
 * with that release's code): the service refuses it naming the command, `npm run audit:seal`
 * seals it without rewriting an event, and from then on it verifies, takes writes and starts.
 */
const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'pre-chain-log', EVENTS_FILE);
const WORKSPACE = '7b2f4c1e-8d3a-4f5b-9c6d-0e1f2a3b4c5d';
const BOT = presetStreamName(WORKSPACE, 'support-bot');

let dir: string;
const file = () => join(dir, EVENTS_FILE);
const run = async (argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env: { DATA_DIR: dir, LOG_LEVEL: 'silent' } };
  return { code: await audit(argv, io), out: out.join('\n'), err: err.join('\n') };
};
const rows = () => {
  const db = new Database(file(), { readonly: true });
  try {
    return db.prepare('SELECT * FROM events ORDER BY position').all() as { position: number; type: string; stream: string }[];
  } finally {
    db.close();
  }
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'presets-seal-'));
  copyFileSync(FIXTURE, file());
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('the service refuses to start on an unsealed log, naming the command', async () => {
  await expect(startTestService({}, dir)).rejects.toThrow(/npm run audit:seal/);
  const verify = await run(['verify']);
  expect(verify.code).toBe(1);
  expect(verify.out).toContain(`FAULT unsealed at ${BOT} revision 0`);
});

it('seals once without rewriting an event, then verifies, takes writes chained on and lets the service start', async () => {
  const before = rows();
  expect(before).toHaveLength(12);

  const sealed = await run(['seal']);
  expect(sealed).toMatchObject({ code: 0 });
  expect(sealed.out).toContain('sealed 12 events in 3 streams, 2 first checkpoints recorded');
  // Not one byte of the old events changed; the first checkpoints were added after them.
  const after = rows();
  expect(after.slice(0, 12)).toEqual(before);
  expect(after.slice(12).map((r) => [r.type, r.stream])).toEqual([
    ['LogCheckpointed', `audit-${WORKSPACE}`],
    ['LogCheckpointed', 'audit-aa9e1c2d-3b4f-4a5b-8c6d-7e8f9a0b1c2d'],
  ]);
  expect((await run(['seal'])).out).toContain('already sealed');
  expect((await run(['verify'])).code).toBe(0);

  // A new event chains from the sealed link of the stream's last old event.
  const store = openSqliteEventStore({ file: file(), writerThread: false });
  const handle = createPresetCommandHandler({ eventStore: store });
  await handle({
    type: 'AddPresetVersion',
    data: { workspaceId: WORKSPACE, slug: 'support-bot', config: { model: 'm' }, systemPrompt: 'New.' },
    metadata: { requestId: 'after-seal', actorUserId: 'dana' },
  });
  expect(await verifyLog(store)).toMatchObject({ ok: true, events: 15 });
  await store.close();

  // An old event changed after the seal is named.
  const db = new Database(file());
  db.prepare("UPDATE events SET data = replace(data, 'Be kind and brief.', 'Be kind and brieF.') WHERE stream = ? AND revision = 1").run(
    BOT,
  );
  db.close();
  const verify = await run(['verify']);
  expect(verify.code).toBe(1);
  expect(verify.out).toContain(`FAULT hash_mismatch at ${BOT} revision 1`);
});

it('lets the service start once sealed', async () => {
  expect((await run(['seal'])).code).toBe(0);
  const service = await startTestService({}, dir);
  await service.stop();
});
