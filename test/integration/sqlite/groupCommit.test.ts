import { randomUUID } from 'node:crypto';
import { ConcurrencyConflict, StoreUnavailable, type NewEvent } from '#src/eventstore/eventStore';
import { groupCommit } from '#src/eventstore/sqlite/groupCommit';
import type { AppendRequest, BatchOutcome } from '#src/eventstore/sqlite/writer';

/**
 * The embedded store's group commit, against a writer whose commits the test finishes one by one:
 * which appends share a batch, how many batches the writer has at once, and that each append gets
 * its own batch's answer, whatever happens to another batch. (No disk: it is here, not in
 * test/unit/, because the events' serialization comes from the SQLite writer's module.)
 */
interface Call {
  batch: AppendRequest[];
  answer(outcome: BatchOutcome): void;
  fail(error: unknown): void;
}
const fakeWriter = () => {
  const calls: Call[] = [];
  let open = 0;
  let mostOpen = 0;
  return {
    calls,
    mostOpen: () => mostOpen,
    write: (batch: AppendRequest[]) =>
      new Promise<BatchOutcome>((resolve, reject) => {
        mostOpen = Math.max(mostOpen, ++open);
        const done = () => open--;
        calls.push({ batch, answer: (o) => (done(), resolve(o)), fail: (e) => (done(), reject(e)) });
      }),
  };
};
/** The writer's answer to a batch in which every append succeeds, numbering positions from `from`. */
const allOk = (call: Call, from = 1n): BatchOutcome => ({
  ok: true,
  outcomes: call.batch.map((a, i) => ({
    ok: true,
    revision: a.expected === 'no_stream' ? 0n : a.expected + 1n,
    position: from + BigInt(i),
  })),
});
const event = (data: unknown = { n: 1 }): NewEvent => ({ id: randomUUID(), type: 'Noted', data, metadata: {} });
const turn = () => new Promise((resolve) => setImmediate(resolve));
const streamsOf = (call: Call) => call.batch.map((a) => a.stream);

describe('group commit (embedded store)', () => {
  it('gives the appends of one turn one batch, and has one batch with the writer at a time; the rest wait for the next', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const first = ['a', 'b', 'c'].map((s) => commits.append(s, [event()], 'no_stream'));
    await turn();
    expect(writer.calls.map(streamsOf)).toEqual([['a', 'b', 'c']]);
    // Appends of later turns, while the batch is with the writer, wait together.
    const second = [commits.append('d', [event()], 'no_stream')];
    await turn();
    second.push(commits.append('e', [event()], 'no_stream'));
    await turn();
    expect(writer.calls).toHaveLength(1);
    writer.calls[0]!.answer(allOk(writer.calls[0]!, 1n));
    await expect(Promise.all(first)).resolves.toEqual([1n, 2n, 3n].map((position) => ({ revision: 0n, position })));
    await turn();
    expect(writer.calls.map(streamsOf)).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    writer.calls[1]!.answer(allOk(writer.calls[1]!, 4n));
    await expect(Promise.all(second)).resolves.toEqual([4n, 5n].map((position) => ({ revision: 0n, position })));
    expect(writer.mostOpen()).toBe(1);
  });

  it('sends the events as their JSON text, keys in the order given, each with the revision it will have', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    void commits.append('s', [event({ z: 1, a: [true, null] }), event({ b: 'x' })], 4n);
    await turn();
    const [append] = writer.calls[0]!.batch;
    expect(append!.expected).toBe(4n);
    expect(append!.events.map((e) => e.data)).toEqual(['{"z":1,"a":[true,null]}', '{"b":"x"}']);
  });

  it("answers each append with its own outcome: a lost race is that append's ConcurrencyConflict only", async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const won = commits.append('a', [event()], 2n);
    const lost = commits.append('b', [event()], 2n);
    await turn();
    writer.calls[0]!.answer({
      ok: true,
      outcomes: [
        { ok: true, revision: 3n, position: 10n },
        { ok: false, expected: 2n, actual: 5n },
      ],
    });
    await expect(won).resolves.toEqual({ revision: 3n, position: 10n });
    const conflict = await lost.catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ConcurrencyConflict);
    expect(conflict).toMatchObject({ stream: 'b' });
  });

  it("fails a batch the writer could not commit, every append of it and none of the next batch's", async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const failed = [commits.append('a', [event()], 'no_stream'), commits.append('b', [event()], 'no_stream')];
    await turn();
    const kept = commits.append('c', [event()], 'no_stream'); // waits for the first batch's answer
    await turn();
    writer.calls[0]!.answer({ ok: false, fault: { code: 'SQLITE_FULL', message: 'database or disk is full' } });
    for (const f of failed) await expect(f).rejects.toBeInstanceOf(StoreUnavailable);
    await turn();
    expect(writer.calls.map(streamsOf)).toEqual([['a', 'b'], ['c']]);
    writer.calls[1]!.answer(allOk(writer.calls[1]!, 1n));
    await expect(kept).resolves.toEqual({ revision: 0n, position: 1n });

    // The writer's thread gone: unavailable too. A fault that is not storage's reaches the caller as it is.
    const gone = commits.append('d', [event()], 'no_stream');
    await turn();
    writer.calls[2]!.answer({ ok: false, fault: { code: 'WORKER', message: 'event store writer: exited' } });
    await expect(gone).rejects.toThrow(new StoreUnavailable('event store writer: exited'));
    const odd = commits.append('e', [event()], 'no_stream');
    await turn();
    writer.calls[3]!.answer({ ok: false, fault: { code: 'SQLITE_MISUSE', message: 'bad' } });
    await expect(odd).rejects.toMatchObject({ message: 'bad', code: 'SQLITE_MISUSE' });
  });

  it('refuses an append with no JSON text on its own, and writes the others of its turn', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const fine = commits.append('a', [event()], 'no_stream');
    // Caught at once: its answer comes in the turn below, before the assertion.
    const bad = commits.append('b', [event({ n: 1n })], 'no_stream').catch((e: unknown) => e);
    await turn();
    expect(await bad).toEqual(expect.objectContaining({ message: expect.stringMatching(/bigint/) }));
    expect(writer.calls.map(streamsOf)).toEqual([['a']]);
    writer.calls[0]!.answer(allOk(writer.calls[0]!));
    await expect(fine).resolves.toEqual({ revision: 0n, position: 1n });

    // A turn of nothing but such appends sends nothing.
    const alone = commits.append('c', [event({ n: Number.NaN })], 'no_stream').catch((e: unknown) => e);
    await turn();
    expect(await alone).toEqual(expect.objectContaining({ message: expect.stringMatching(/NaN/) }));
    expect(writer.calls).toHaveLength(1);
  });

  it('fails the batch when the writer throws instead of answering (the message could not be sent)', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const appends = [commits.append('a', [event()], 'no_stream'), commits.append('b', [event()], 'no_stream')];
    await turn();
    const error = new Error('could not be cloned');
    writer.calls[0]!.fail(error);
    for (const a of appends) await expect(a).rejects.toBe(error);
  });

  it('splits a turn of more than maxBatch appends into batches sent one after another, and drains every append, waiting ones included', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write, { maxBatch: 2 });
    const appends = ['a', 'b', 'c', 'd', 'e'].map((s) => commits.append(s, [event()], 'no_stream'));
    await turn();
    expect(writer.calls.map(streamsOf)).toEqual([['a', 'b']]);
    let drained = false;
    const draining = commits.drain().then(() => (drained = true));
    writer.calls[0]!.answer(allOk(writer.calls[0]!, 1n));
    await turn();
    expect(drained).toBe(false); // 'c' and 'd' are with the writer now, 'e' waits
    expect(writer.calls.map(streamsOf)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    writer.calls[1]!.answer(allOk(writer.calls[1]!, 3n));
    await turn();
    expect(drained).toBe(false);
    expect(writer.calls.map(streamsOf)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    writer.calls[2]!.answer(allOk(writer.calls[2]!, 5n));
    await draining;
    await expect(Promise.all(appends)).resolves.toEqual([1n, 2n, 3n, 4n, 5n].map((position) => ({ revision: 0n, position })));
    expect(writer.mostOpen()).toBe(1);
  });

  it('drains appends made in this very turn, before their batch was due', async () => {
    const writer = fakeWriter();
    const commits = groupCommit(writer.write);
    const append = commits.append('a', [event()], 'no_stream');
    const draining = commits.drain();
    expect(writer.calls).toHaveLength(1);
    writer.calls[0]!.answer(allOk(writer.calls[0]!));
    await draining;
    await expect(append).resolves.toEqual({ revision: 0n, position: 1n });
  });
});
