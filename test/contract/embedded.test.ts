import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteEventStore } from '#src/eventstore/sqlite/store';
import { openSqliteReadModel } from '#projections/readmodel/sqlite';
import { eventStoreContract } from './eventStoreContract';
import { sharedTailContract } from './sharedTailContract';
import { readModelContract } from './readModelContract';
import { compiledEntry } from '../support/threads';

const tempDir = () => mkdtempSync(join(tmpdir(), 'presets-contract-'));
const WRITER = compiledEntry('src/eventstore/sqlite/writerWorker');

describe('event store contract: embedded SQLite', () => {
  eventStoreContract(async () => {
    const dir = tempDir();
    const store = openSqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20 });
    return {
      store,
      cleanup: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

// The built service writes from a worker thread; tests running from source use the compiled worker
// that the jest globalSetup builds.
const withWriterThread = async () => {
  const dir = tempDir();
  const store = openSqliteEventStore({ file: join(dir, 'events.db'), pollIntervalMs: 20, writerThread: WRITER });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

for (const kind of ['parsed', 'stored text'] as const)
  describe(`shared tail contract (${kind}): embedded SQLite, writer thread`, () => {
    sharedTailContract(withWriterThread, kind);
  });

describe('event store contract: embedded SQLite, writer thread', () => {
  eventStoreContract(withWriterThread);
});

// The projector thread's store on the same file sees each commit at once, told by whichever thread
// committed it, not by a poll (here one a minute) nor by a message through another thread.
it.each([
  ['a writer thread', WRITER],
  ['a store writing on its own thread', false as const],
])('%s tells every store of the process on its file of each commit', async (_name, writerThread) => {
  const dir = tempDir();
  const file = join(dir, 'events.db');
  const writing = openSqliteEventStore({ file, writerThread, pollIntervalMs: 60_000 });
  const following = openSqliteEventStore({ file, writerThread: false, pollIntervalMs: 60_000 });
  try {
    // The writing store's own subscriptions are told the same way.
    const follow = (store: typeof writing) => {
      const seen: string[] = [];
      let delivered!: () => void;
      const both = new Promise<void>((resolve) => {
        delivered = resolve;
      });
      const subscription = store.subscribe('start', async (e) => {
        seen.push(e.id);
        if (seen.length === 2) delivered();
      });
      return { seen, both, subscription };
    };
    const other = follow(following);
    const own = follow(writing);
    await new Promise((r) => setTimeout(r, 50)); // caught up and waiting for the next poll
    await writing.append('preset-w-a', [{ id: 'a1', type: 'T', data: {}, metadata: {} }], 'no_stream');
    await writing.append('preset-w-b', [{ id: 'b1', type: 'T', data: {}, metadata: {} }], 'no_stream');
    await Promise.all([other.both, own.both]); // without the writer's word this waits a minute: the test times out
    expect(other.seen).toEqual(['a1', 'b1']);
    expect(own.seen).toEqual(['a1', 'b1']);
    await other.subscription.stop();
    await own.subscription.stop();
  } finally {
    await following.close();
    await writing.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('read model contract: embedded SQLite', () => {
  readModelContract(async () => {
    const dir = tempDir();
    const readModel = openSqliteReadModel({ file: join(dir, 'readmodel.db') });
    return {
      readModel,
      cleanup: async () => {
        await readModel.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
