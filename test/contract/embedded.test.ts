import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '../../src/eventstore/sqlite';
import { openSqliteReadModel } from '../../projections/readmodel/sqlite';
import { eventStoreContract } from './eventStoreContract';
import { readModelContract } from './readModelContract';

const tempDir = () => mkdtempSync(join(tmpdir(), 'presets-contract-'));

describe('event store contract: embedded SQLite', () => {
  eventStoreContract(async () => {
    const dir = tempDir();
    const store = openSqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20 });
    return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  });
});

// The built service writes from a worker thread; tests running from source use the compiled worker
// that the jest globalSetup builds.
describe('event store contract: embedded SQLite, writer thread', () => {
  eventStoreContract(async () => {
    const dir = tempDir();
    const workerFile = join(__dirname, '..', '..', 'dist', 'src', 'eventstore', 'sqliteWriterWorker.js');
    const store = openSqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20, writer: 'thread', workerFile });
    return { store, cleanup: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
  });
});

describe('read model contract: embedded SQLite', () => {
  readModelContract(async () => {
    const dir = tempDir();
    const readModel = openSqliteReadModel({ file: join(dir, 'readmodel.db') });
    return { readModel, cleanup: async () => { await readModel.close(); rmSync(dir, { recursive: true, force: true }); } };
  });
});
