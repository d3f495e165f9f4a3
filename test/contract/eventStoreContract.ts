import { createHash, randomUUID } from 'node:crypto';
import { ConcurrencyConflict, type EventStoreAdapter, type NewEvent, type RecordedEvent } from '#src/eventstore/eventStore';
import { streamShare, type StoredEvent } from '#src/eventstore/streamReader';
import type { StoredFeedEvent } from '#src/eventstore/eventFeed';

/**
 * What every event store must do, whatever it is built on. Each implementation's test file calls
 * this with a factory; streams are named per test run, so a shared server can hold old data.
 */
export interface EventStoreFixture {
  store: EventStoreAdapter;
  cleanup(): Promise<void>;
}

const newEvent = (type: string, n: number): NewEvent => ({
  id: randomUUID(),
  type,
  data: { n, nested: { list: [1, 'two', null] } },
  metadata: { requestId: `req-${n}` },
});

const collect = <E = RecordedEvent>(count: number) => {
  const seen: E[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const onEvent = async (e: E) => {
    seen.push(e);
    if (seen.length === count) done();
  };
  return { seen, finished, onEvent };
};

const within = <T>(p: Promise<T>, ms = 10_000) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms).unref())]);

export const eventStoreContract = (open: () => Promise<EventStoreFixture>) => {
  let fixture: EventStoreFixture;
  let store: EventStoreAdapter;
  let prefix: string;
  const stream = (name: string) => `${prefix}${name}`;

  beforeEach(async () => {
    fixture = await open();
    store = fixture.store;
    prefix = `contract${randomUUID().replace(/-/g, '')}-`;
  });
  afterEach(async () => fixture.cleanup());

  it('appends to a new stream at revision 0, then at the next revision', async () => {
    const first = await store.append(stream('a'), [newEvent('A', 1)], 'no_stream');
    expect(first.revision).toBe(0n);
    const second = await store.append(stream('a'), [newEvent('B', 2), newEvent('C', 3)], 0n);
    expect(second.revision).toBe(2n);
    expect(second.position > first.position).toBe(true);
  });

  it('rejects an append whose expected revision is not the current one', async () => {
    await store.append(stream('a'), [newEvent('A', 1)], 'no_stream');
    await expect(store.append(stream('a'), [newEvent('A', 2)], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyConflict);
    await expect(store.append(stream('a'), [newEvent('A', 2)], 5n)).rejects.toBeInstanceOf(ConcurrencyConflict);
    await expect(store.append(stream('missing'), [newEvent('A', 2)], 0n)).rejects.toBeInstanceOf(ConcurrencyConflict);
    expect(await store.read(stream('a'))).toHaveLength(1);
    expect(await store.read(stream('missing'))).toEqual([]);
  });

  it('lets exactly one of several racing appends at the same revision win', async () => {
    await store.append(stream('race'), [newEvent('A', 0)], 'no_stream');
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.append(stream('race'), [newEvent('A', i + 1)], 0n)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyConflict);
    expect((await store.read(stream('race'))).map((e) => e.revision)).toEqual([0n, 1n]);
  });

  it('reads a stream back as written, in revision order, from a revision and with a limit', async () => {
    const events = [newEvent('A', 1), newEvent('B', 2), newEvent('C', 3)];
    await store.append(stream('r'), events, 'no_stream');
    const read = await store.read(stream('r'));
    expect(read.map((e) => [e.id, e.type, e.stream, e.revision, e.data, e.metadata])).toEqual(
      events.map((e, i) => [
        e.id,
        e.type,
        stream('r'),
        BigInt(i),
        e.data,
        { ...(e.metadata as object), hashed: 'as_stored', hash: expect.any(String) },
      ]),
    );
    expect(read.every((e) => e.recordedAt instanceof Date && !Number.isNaN(e.recordedAt.getTime()))).toBe(true);
    expect((await store.read(stream('r'), { fromRevision: 1n, limit: 1 })).map((e) => e.type)).toEqual(['B']);
  });

  it('keeps the keys of data and metadata in the order they were sent, at every depth', async () => {
    const data = { z: 1, a: { reasoning: { type: 'string' }, answer: [{ y: true, b: null }] }, m: 'x', logit: { '50256': -100, '10': 2 } };
    const metadata = { requestId: 'r', actorUserId: 'u', keyId: 'k' };
    await store.append(stream('o'), [{ id: randomUUID(), type: 'A', data, metadata }], 'no_stream');
    const [read] = await store.read(stream('o'));
    // Integer-like keys come in JavaScript's order (ascending), as any parse of the text gives them.
    expect(JSON.stringify(read!.data)).toBe(JSON.stringify(data));
    expect(Object.keys(read!.metadata as object)).toEqual(['requestId', 'actorUserId', 'keyId', 'hashed', 'hash']);
    const [fed] = await store.readAll({ after: 0n, streamPrefix: stream('o'), limit: 10 });
    expect(JSON.stringify(fed!.data)).toBe(JSON.stringify(data));
  });

  it('links every event to the one before it in its stream: SHA-256(previous ‖ its text as stored), from 64 zeros', async () => {
    // The formula, written here from the docs' words with node:crypto, not the service's code: the
    // body is type, data, metadata without its hash, stream and revision, data and metadata as the
    // JSON text the store keeps (JSON.stringify of what it gives back), the rest as RFC 8785 puts it.
    const link = (
      previous: string,
      e: { type: string; data: unknown; metadata: Record<string, unknown>; revision: bigint },
      name: string,
    ) => {
      const { hash: _hash, ...metadata } = e.metadata;
      const body =
        `{"data":${JSON.stringify(e.data)},"metadata":${JSON.stringify(metadata)},"revision":"${e.revision}",` +
        `"stream":${JSON.stringify(name)},"type":${JSON.stringify(e.type)}}`;
      return createHash('sha256').update(Buffer.from(previous, 'hex')).update(body).digest('hex');
    };
    await store.append(stream('c'), [newEvent('A', 1), newEvent('B', 2)], 'no_stream');
    await store.append(stream('other'), [newEvent('A', 9)], 'no_stream');
    // A hash the caller sends is not trusted: the store sets its own.
    await store.append(
      stream('c'),
      [{ ...newEvent('C', 3), data: { z: 1, a: 2 }, metadata: { requestId: 'x', hash: 'f'.repeat(64) } }],
      1n,
    );
    const read = await store.read(stream('c'));
    let previous = '0'.repeat(64);
    for (const e of read) {
      const metadata = e.metadata as Record<string, unknown>;
      expect(metadata.hashed).toBe('as_stored');
      previous = link(previous, { ...e, metadata }, stream('c'));
      expect(metadata.hash).toBe(previous);
    }
    expect(read).toHaveLength(3);
    const [other] = await store.read(stream('other'));
    expect((other!.metadata as { hash: string }).hash).toBe(
      link('0'.repeat(64), { ...other!, metadata: other!.metadata as Record<string, unknown> }, stream('other')),
    );
  });

  it('keeps the links audit:seal records beside events, by position', async () => {
    const { position } = await store.append(stream('s'), [newEvent('A', 1)], 'no_stream');
    const other = position + 1_000_000n;
    await store.recordSeal([
      { position, hash: 'a'.repeat(64) },
      { position: other, hash: 'b'.repeat(64) },
    ]);
    expect(await store.sealedHashes([position, other, other + 1n])).toEqual(
      new Map([
        [position, 'a'.repeat(64)],
        [other, 'b'.repeat(64)],
      ]),
    );
  });

  it('refuses an event whose metadata is not a JSON object (it carries the link), storing nothing', async () => {
    await expect(store.append(stream('m'), [{ ...newEvent('A', 1), metadata: null }], 'no_stream')).rejects.toThrow(/metadata/);
    expect(await store.read(stream('m'))).toEqual([]);
  });

  it('answers a retried append (same event ids, same expectation) without storing it twice', async () => {
    const event = newEvent('A', 1);
    const first = await store.append(stream('retry'), [event], 'no_stream');
    const again = await store.append(stream('retry'), [event], 'no_stream');
    expect(again.revision).toBe(first.revision);
    expect(await store.read(stream('retry'))).toHaveLength(1);
  });

  it('reads all streams in position order after a position, filtered by prefix', async () => {
    await store.append(stream('x'), [newEvent('X', 1)], 'no_stream');
    const mark = await store.append(stream('y'), [newEvent('Y', 2)], 'no_stream');
    await store.append(stream('x'), [newEvent('X', 3)], 0n);
    await store.append(`other${randomUUID()}`, [newEvent('O', 4)], 'no_stream');
    const all = await store.readAll({ streamPrefix: prefix, limit: 100 });
    expect(all.map((e) => e.type)).toEqual(['X', 'Y', 'X']);
    const after = await store.readAll({ streamPrefix: prefix, after: mark.position, limit: 100 });
    expect(after.map((e) => (e.data as { n: number }).n)).toEqual([3]);
    expect((await store.readAll({ streamPrefix: prefix, limit: 2 })).length).toBe(2);
    const head = await store.headPosition();
    expect(head !== null && head >= mark.position).toBe(true);

    // A store that pages through stored text hands out the same events, in the same order, as text,
    // for every filter readAll takes.
    if (store.readAllStored) {
      const asText = async (options: Parameters<typeof store.readAll>[0]) =>
        (await store.readAllStored!(options)).map(({ stored, data, metadata, ...rest }) => ({
          stored,
          ...rest,
          data: JSON.parse(data) as unknown,
          metadata: JSON.parse(metadata) as unknown,
        }));
      for (const options of [
        { streamPrefix: prefix, limit: 100 },
        { streamPrefix: prefix, after: mark.position, limit: 100 },
        { streamPrefix: prefix, limit: 2 },
        { streamPrefix: prefix, types: ['X'], limit: 100 },
        { limit: 100, after: mark.position },
      ]) {
        const parsed = await store.readAll(options);
        expect(parsed.length).toBeGreaterThan(0);
        expect(await asText(options)).toEqual(parsed.map((e) => ({ stored: true, ...e })));
      }
    }
  });

  it('counts what readAll would return, up to its limit, for every filter readAll takes', async () => {
    // A workspace's prefix (`preset-<uuid>-`) too: the embedded store reads and counts those through an index of their own.
    const workspace = `preset-${randomUUID()}-`;
    await store.append(stream('x'), [newEvent('X', 1)], 'no_stream');
    const mark = await store.append(`${workspace}a`, [newEvent('Y', 2), newEvent('X', 3)], 'no_stream');
    await store.append(stream('x'), [newEvent('Z', 4)], 0n);
    await store.append(`${workspace}b`, [newEvent('X', 5)], 'no_stream');
    await store.append(`other${randomUUID()}`, [newEvent('X', 6)], 'no_stream');
    const cases: Array<[Parameters<typeof store.countAll>[0], number]> = [
      [{ streamPrefix: prefix, limit: 100 }, 2],
      [{ streamPrefix: prefix, limit: 1 }, 1],
      [{ streamPrefix: prefix, types: ['X'], limit: 100 }, 1],
      [{ streamPrefix: prefix, types: ['Nothing'], limit: 100 }, 0],
      [{ streamPrefix: workspace, limit: 100 }, 3],
      [{ streamPrefix: workspace, after: mark.position, limit: 100 }, 1],
      [{ streamPrefix: workspace, types: ['X'], limit: 100 }, 2],
      [{ streamPrefix: workspace, types: ['X', 'Y'], limit: 2 }, 2],
      [{ streamPrefix: workspace, types: ['X', 'Y'], after: mark.position, limit: 100 }, 1],
      // Without a prefix, limits the events written here fill: a shared server's other writers cannot change the count.
      [{ after: mark.position, limit: 3 }, 3],
      [{ after: mark.position, types: ['X'], limit: 2 }, 2],
    ];
    for (const [options, expected] of cases) {
      const count = await store.countAll(options);
      expect({ options, count }).toEqual({ options, count: expected });
      expect({ options, count }).toEqual({ options, count: (await store.readAll(options)).length });
    }
  });

  it('reads all streams newest first before a position, filtered by prefix and by type', async () => {
    await store.append(stream('x'), [newEvent('X', 1)], 'no_stream');
    await store.append(stream('y'), [newEvent('Y', 2)], 'no_stream');
    const mark = await store.append(stream('x'), [newEvent('X', 3)], 0n);
    await store.append(stream('y'), [newEvent('Z', 4)], 0n);
    await store.append(`other${randomUUID()}`, [newEvent('X', 5)], 'no_stream');
    const n = (events: RecordedEvent[]) => events.map((e) => (e.data as { n: number }).n);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, limit: 100 }))).toEqual([4, 3, 2, 1]);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, limit: 2 }))).toEqual([4, 3]);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, before: mark.position, limit: 100 }))).toEqual([2, 1]);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, types: ['X'], limit: 100 }))).toEqual([3, 1]);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, types: ['X', 'Z'], limit: 1 }))).toEqual([4]);
    expect(n(await store.readAllBackwards({ streamPrefix: prefix, types: ['X'], before: mark.position, limit: 100 }))).toEqual([1]);
    expect(await store.readAllBackwards({ streamPrefix: prefix, types: ['Nothing'], limit: 100 })).toEqual([]);
    // Without a prefix the newest event of the whole store comes first: here, the other stream's.
    const [newest] = await store.readAllBackwards({ limit: 1 });
    expect(newest?.position).toBe(await store.headPosition());
    // Paging backwards from the last position seen reads each event once.
    const pages: number[] = [];
    for (let before: bigint | undefined; ;) {
      const page = await store.readAllBackwards({ streamPrefix: prefix, before, limit: 3 });
      pages.push(...n(page));
      if (page.length < 3) break;
      before = page[page.length - 1]!.position;
    }
    expect(pages).toEqual([4, 3, 2, 1]);
    // And forwards, by type.
    expect(n(await store.readAll({ streamPrefix: prefix, types: ['X'], limit: 100 }))).toEqual([1, 3]);
    expect(n(await store.readAll({ streamPrefix: prefix, types: ['Y', 'Z'], after: mark.position, limit: 100 }))).toEqual([4]);
  });

  it('reads stream by stream up to a position: each stream whole and in revision order, in pages, in shares', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'].map(stream);
    for (let round = 0; round < 3; round++) {
      for (const name of names) await store.append(name, [newEvent(name, round)], round === 0 ? 'no_stream' : BigInt(round - 1));
    }
    await store.append(`other${randomUUID()}`, [newEvent('O', 0)], 'no_stream');
    const until = (await store.read(names[2]!))[2]!.position; // c's last: d's and e's last come after it
    await store.append(names[0]!, [newEvent(names[0]!, 3)], 2n); // and this one too
    const read = async (options: { pageSize?: number; share?: { index: number; count: number } } = {}) => {
      const pages: RecordedEvent[][] = [];
      for await (const page of store.readStreams({ until, streamPrefix: prefix, ...options })) pages.push(page);
      return pages;
    };
    const all = (await read()).flat();
    const runs = all.reduce<Array<{ stream: string; revisions: bigint[] }>>((acc, e) => {
      if (acc[acc.length - 1]?.stream !== e.stream) acc.push({ stream: e.stream, revisions: [] });
      acc[acc.length - 1]!.revisions.push(e.revision);
      return acc;
    }, []);
    expect(runs.map((r) => r.stream).sort()).toEqual(names); // each stream once, ours only
    const expected: Record<string, bigint[]> = { a: [0n, 1n, 2n], b: [0n, 1n, 2n], c: [0n, 1n, 2n], d: [0n, 1n], e: [0n, 1n] };
    for (const r of runs) expect(r.revisions).toEqual(expected[r.stream.slice(prefix.length)]);
    const paged = await read({ pageSize: 2 });
    expect(paged.every((p) => p.length <= 3)).toBe(true); // a page ends once it has 2 or more
    expect(paged.flat().map((e) => e.id)).toEqual(all.map((e) => e.id));
    const shares = await Promise.all([0, 1, 2].map((index) => read({ share: { index, count: 3 } })));
    shares.forEach((pages, index) => expect(pages.flat().every((e) => streamShare(e.stream, 3) === index)).toBe(true));
    expect(shares.flatMap((pages) => pages.flat().map((e) => e.id)).sort()).toEqual(all.map((e) => e.id).sort());
  });

  it('hands out stored text (where it keeps it): the events readAll reads, in position order, in pages, and one by its revision', async () => {
    if (!store.readLogStored || !store.readStored) return; // only the embedded store keeps its events' text
    for (let round = 0; round < 3; round++) {
      for (const name of ['a', 'b'].map(stream))
        await store.append(name, [newEvent(name, round)], round === 0 ? 'no_stream' : BigInt(round - 1));
    }
    await store.append(`other${randomUUID()}`, [newEvent('O', 0)], 'no_stream');
    const all = await store.readAll({ streamPrefix: prefix, limit: 100 });
    const stored: StoredEvent[] = [];
    for (let after = 0n; ;) {
      const page = await store.readLogStored({ after, limit: 4, streamPrefix: prefix });
      expect(page.length).toBeLessThanOrEqual(4);
      stored.push(...page);
      if (page.length < 4) break;
      after = page[page.length - 1]!.position;
    }
    const fields = ['stream', 'revision', 'position', 'type', 'data', 'metadata'] as const;
    const asRead = all.map((e) => Object.fromEntries(fields.map((f) => [f, e[f]])));
    expect(stored.map((e) => ({ ...e, data: JSON.parse(e.data), metadata: JSON.parse(e.metadata) }))).toEqual(asRead);
    expect(stored).toHaveLength(6);
    expect((await store.readLogStored({ limit: 100 })).map((e) => e.position)).toEqual(
      (await store.readAll({ limit: 100 })).map((e) => e.position),
    );
    expect(await store.readStored(all[1]!.stream, all[1]!.revision)).toEqual(stored[1]);
    expect(await store.readStored(all[1]!.stream, 99n)).toBeUndefined();
    // Many at once: those stored, each as readStored has it, past one statement's worth of keys.
    expect(store.readStoredMany).toBeDefined();
    const keys = [...all.map(({ stream, revision }) => ({ stream, revision })), { stream: all[0]!.stream, revision: 99n }];
    const many = await store.readStoredMany!([...Array.from({ length: 40 }, () => keys).flat(), ...keys.reverse()]);
    const byKey = (e: StoredEvent) => `${e.stream}@${e.revision}`;
    expect(new Set(many.map(byKey))).toEqual(new Set(stored.map(byKey)));
    for (const e of many) expect(e).toEqual(stored.find((x) => byKey(x) === byKey(e)));
  });

  it('names the head of the streams with a prefix, even when other streams were written after them', async () => {
    expect(await store.headPosition({ streamPrefix: prefix })).toBeNull();
    const ours = await store.append(stream('h'), [newEvent('H', 1)], 'no_stream');
    const theirs = await store.append(`other${randomUUID()}`, [newEvent('O', 2)], 'no_stream');
    expect(await store.headPosition({ streamPrefix: prefix })).toBe(ours.position);
    const head = await store.headPosition();
    expect(head !== null && head >= theirs.position).toBe(true);
  });

  it('subscribes from the start: past events, then live ones, in order', async () => {
    await store.append(stream('s'), [newEvent('A', 1), newEvent('B', 2)], 'no_stream');
    const { seen, finished, onEvent } = collect(4);
    const sub = store.subscribe('start', onEvent, { streamPrefix: prefix });
    await store.append(stream('t'), [newEvent('C', 3)], 'no_stream');
    await store.append(stream('s'), [newEvent('D', 4)], 1n);
    await within(finished);
    await sub.stop();
    expect(seen.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
    const positions = seen.map((e) => e.position);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
  });

  it('follows the log as stored text, where it has it, as subscribe does parsed: past events, then live ones', async () => {
    if (!store.subscribeStored) return;
    await store.append(stream('s'), [newEvent('A', 1), newEvent('B', 2)], 'no_stream');
    const parsed = collect(4);
    const asText = collect<StoredFeedEvent>(4);
    const subs = [
      store.subscribe('start', parsed.onEvent, { streamPrefix: prefix }),
      store.subscribeStored('start', asText.onEvent, { streamPrefix: prefix }),
    ];
    await store.append(stream('t'), [newEvent('C', 3)], 'no_stream');
    await store.append(stream('s'), [newEvent('D', 4)], 1n);
    await within(Promise.all([parsed.finished, asText.finished]));
    for (const sub of subs) await sub.stop();
    expect(
      asText.seen.map(({ stored, data, metadata, ...rest }) => ({
        stored,
        ...rest,
        data: JSON.parse(data) as unknown,
        metadata: JSON.parse(metadata) as unknown,
      })),
    ).toEqual(parsed.seen.map((e) => ({ stored: true, ...e })));
  });

  it('resumes after the last position it delivered: no gap, no repeat', async () => {
    const written = [newEvent('A', 1), newEvent('B', 2), newEvent('C', 3), newEvent('D', 4)];
    await store.append(stream('resume'), written.slice(0, 2), 'no_stream');
    const first = collect(2);
    const sub1 = store.subscribe('start', first.onEvent, { streamPrefix: prefix });
    await within(first.finished);
    await sub1.stop();
    await store.append(stream('resume'), written.slice(2), 1n);
    const second = collect(2);
    const sub2 = store.subscribe({ after: first.seen[1]!.position }, second.onEvent, { streamPrefix: prefix });
    await within(second.finished);
    await new Promise((r) => setTimeout(r, 200)); // room for a wrongly repeated event to arrive
    await sub2.stop();
    expect([...first.seen, ...second.seen].map((e) => e.id)).toEqual(written.map((e) => e.id));
  });
};
