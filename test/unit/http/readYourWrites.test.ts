import { EventEmitter } from 'node:events';
import { createProjectionWaiter } from '#src/http/readYourWrites';
import type { PresetJson, ReadModel } from '#projections/readmodel/readModel';

/** A read model holding documents by key, counting how often it is read. */
const fakeReadModel = () => {
  const docs = new Map<string, PresetJson>();
  let reads = 0;
  let failWith: Error | undefined;
  const readModel = {
    getPresetJson: async (workspaceId: string, slug: string) => {
      reads++;
      if (failWith) throw failWith;
      return docs.get(`${workspaceId}/${slug}`) ?? null;
    },
  } as unknown as ReadModel;
  return {
    readModel,
    put: (doc: PresetJson) => docs.set(`${doc.workspaceId}/${doc.slug}`, doc),
    reads: () => reads,
    fail: (error: Error) => {
      failWith = error;
    },
  };
};

const doc = (slug: string, revision: bigint, workspaceId = 'ws1'): PresetJson => ({
  workspaceId,
  slug,
  revision,
  json: `{"slug":"${slug}","rev":${revision}}`,
});

describe('read-your-writes waiter', () => {
  it('answers from the announcement of the document, without reading the read model', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected });
    const pending = wait('ws1', 'a', 2n, 5_000);
    projected.emit('projected', 10n, [doc('b', 5n), doc('a', 1n)]); // another preset; an older revision
    projected.emit('projected', 11n, [doc('a', 2n)]);
    await expect(pending).resolves.toEqual(doc('a', 2n));
    expect(store.reads()).toBe(0);
  });

  it('keeps one listener however many writes wait, and none of theirs after they end', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected });
    const before = projected.listenerCount('projected');
    const pendings = ['a', 'b', 'c'].map((slug) => wait('ws1', slug, 0n, 5_000));
    expect(projected.listenerCount('projected')).toBe(before);
    projected.emit('projected', 1n, [doc('a', 0n), doc('b', 0n), doc('c', 0n)]);
    await expect(Promise.all(pendings)).resolves.toEqual([doc('a', 0n), doc('b', 0n), doc('c', 0n)]);
    expect(projected.listenerCount('projected')).toBe(before);
  });

  it("a document announced before the wait began (the append's answer came late) is read, not waited for", async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected });
    store.put(doc('a', 3n));
    projected.emit('projected', 7n, [doc('a', 3n)]);
    await expect(wait('ws1', 'a', 3n, 5_000)).resolves.toEqual(doc('a', 3n));
    expect(store.reads()).toBe(1);
  });

  it('does not mistake a preset of the same slug in another workspace for the one written', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected });
    const pending = wait('ws1', 'a', 0n, 5_000);
    projected.emit('projected', 1n, [doc('a', 0n, 'ws2')]);
    projected.emit('projected', 2n, [doc('a', 0n, 'ws1')]);
    await expect(pending).resolves.toEqual(doc('a', 0n, 'ws1'));
  });

  it('answers null when the bound passes (the write is then a 202)', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected });
    await expect(wait('ws1', 'a', 0n, 20)).resolves.toBeNull();
    projected.emit('projected', 1n, [doc('a', 0n)]); // after the end: nobody is waiting any more
  });

  it('finds by reading, at a tenth of the poll rate, a document no announcement names (another process projected it)', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected, pollIntervalMs: 2 });
    const pending = wait('ws1', 'a', 1n, 5_000);
    setTimeout(() => store.put(doc('a', 1n)), 30);
    await expect(pending).resolves.toEqual(doc('a', 1n));
  });

  it('reads only for waits that have lasted a whole tick of the slow poll, not for every wait at every tick', async () => {
    jest.useFakeTimers();
    try {
      const store = fakeReadModel();
      const projected = new EventEmitter();
      const wait = createProjectionWaiter({ readModel: store.readModel, projected, pollIntervalMs: 10 }); // ticks every 100 ms
      const first = wait('ws1', 'a', 0n, 10_000);
      await jest.advanceTimersByTimeAsync(150); // tick 1 at 100 ms: 'a' is younger than a tick
      expect(store.reads()).toBe(0);
      const second = wait('ws1', 'b', 0n, 10_000);
      await jest.advanceTimersByTimeAsync(100); // tick 2 at 200 ms: 'a' has waited a whole tick, 'b' has not
      expect(store.reads()).toBe(1);
      projected.emit('projected', 1n, [doc('a', 0n), doc('b', 0n)]);
      await expect(Promise.all([first, second])).resolves.toEqual([doc('a', 0n), doc('b', 0n)]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('forgets the oldest announcements beyond its bound, and still finds their documents by reading', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected, pollIntervalMs: 2, rememberedAnnouncements: 2 });
    store.put(doc('a', 0n));
    projected.emit('projected', 1n, [doc('a', 0n), doc('b', 0n), doc('c', 0n)]);
    const pending = wait('ws1', 'a', 0n, 5_000);
    expect(store.reads()).toBe(0); // 'a' was forgotten: no read at once, the slow poll finds it
    await expect(pending).resolves.toEqual(doc('a', 0n));
  });

  it('fails the wait when reading the read model fails', async () => {
    const store = fakeReadModel();
    const projected = new EventEmitter();
    const wait = createProjectionWaiter({ readModel: store.readModel, projected, pollIntervalMs: 2 });
    store.fail(new Error('disk gone'));
    await expect(wait('ws1', 'a', 0n, 5_000)).rejects.toThrow('disk gone');
  });

  it('without a projector in this process, polls the read model until the revision is there', async () => {
    const store = fakeReadModel();
    const wait = createProjectionWaiter({ readModel: store.readModel, pollIntervalMs: 2 });
    store.put(doc('a', 0n));
    const pending = wait('ws1', 'a', 1n, 5_000);
    setTimeout(() => store.put(doc('a', 1n)), 20);
    await expect(pending).resolves.toEqual(doc('a', 1n));
    await expect(wait('ws1', 'b', 0n, 20)).resolves.toBeNull();
  });
});
