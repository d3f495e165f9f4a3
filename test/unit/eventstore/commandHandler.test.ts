import * as E from 'fp-ts/Either';
import { CommandRejected, handleCommand, PreconditionFailed, type Rejection } from '#src/eventstore/commandHandler';
import type { Decider } from '#src/eventstore/decider';
import { ConcurrencyConflict, type EventStore, type RecordedEvent } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { foldFromStore, withStateCache } from '#src/eventstore/states';

/**
 * The generic command handler over a cache of stream states: a command on a stream the cache
 * holds is decided on the cached state and appended expecting its revision, without reading the
 * stream; where the cache is behind (another process appended), the outcome must be the one a
 * handler that always reads would give.
 *
 * The decider: a counter that can be closed. `add` to a closed counter is rejected; `set` to the
 * value it has changes nothing.
 */
type Command = { add: number } | { set: number } | 'close' | 'open';
type Event = { type: 'Added'; n: number } | { type: 'Closed' } | { type: 'Opened' };
interface State {
  sum: number;
  closed: boolean;
}
const counter: Decider<State, Command, Event, Rejection> = {
  initialState: () => ({ sum: 0, closed: false }),
  evolve: (s, e) =>
    e.type === 'Added' ? { ...s, sum: s.sum + e.n } : e.type === 'Closed' ? { ...s, closed: true } : { ...s, closed: false },
  decide: (c, s) => {
    if (c === 'close') return E.right(s.closed ? [] : [{ type: 'Closed' }]);
    if (c === 'open') return E.right(s.closed ? [{ type: 'Opened' }] : []);
    if (s.closed) return E.left({ kind: 'conflict', message: 'closed' });
    const n = 'add' in c ? c.add : c.set - s.sum;
    return E.right(n === 0 ? [] : [{ type: 'Added', n }]);
  },
};
const decode = (recorded: RecordedEvent): Event => ({ type: recorded.type, ...(recorded.data as object) }) as Event;
let ids = 0;
const toNewEvent = ({ type, ...data }: Event) => ({ id: `e${++ids}`, type, data, metadata: {} });

/** The handler over a memory store, counting the stream reads and the appends it makes. */
const given = () => {
  const store = openMemoryEventStore();
  const reads: string[] = [];
  const appends: Array<bigint | 'no_stream' | 'any'> = [];
  const counted: EventStore = {
    ...store,
    read: (stream, options) => {
      reads.push(stream);
      return store.read(stream, options);
    },
    append: (stream, events, expected) => {
      appends.push(expected);
      return store.append(stream, events, expected);
    },
  };
  const states = withStateCache(foldFromStore(counted, { ...counter, decode }), 100);
  const deps = { eventStore: counted, states, decider: counter, toNewEvent };
  /** An append by another process: this handler's cache is not told. */
  const elsewhere = async (stream: string, event: Event) => {
    const [last] = await store.read(stream, {}).then((all) => all.slice(-1));
    await store.append(stream, [toNewEvent(event)], last ? last.revision : 'no_stream');
  };
  const history = async (stream: string) => (await store.read(stream, {})).map((e) => ({ type: e.type, ...(e.data as object) }));
  return {
    store,
    reads,
    appends,
    deps,
    elsewhere,
    history,
    handle: (c: Command, o?: { expectedRevision?: bigint }) => handleCommand(deps, 's', c, o),
  };
};

describe('the command handler over cached stream states', () => {
  it('reads a stream it has not seen, then appends to it without reading it again', async () => {
    const { handle, reads, appends, history } = given();
    await handle({ add: 1 });
    await handle({ add: 2 });
    const third = await handle({ add: 3 });
    expect(third).toMatchObject({ state: { sum: 6, closed: false }, revision: 2n, events: [{ type: 'Added', n: 3 }] });
    expect(reads).toEqual(['s']); // the first command only
    expect(appends).toEqual(['no_stream', 0n, 1n]);
    expect(await history('s')).toEqual([
      { type: 'Added', n: 1 },
      { type: 'Added', n: 2 },
      { type: 'Added', n: 3 },
    ]);
  });

  it('behind another process: the append at the cached revision fails, and the command is decided again on the events read', async () => {
    const { handle, reads, appends, elsewhere, history } = given();
    await handle({ add: 1 });
    await elsewhere('s', { type: 'Added', n: 10 });
    // Decided on the cache, `set 5` would add 4; on the stream as it is (11), it adds -6.
    const result = await handle({ set: 5 });
    expect(result).toMatchObject({ state: { sum: 5 }, revision: 2n });
    expect(await history('s')).toEqual([
      { type: 'Added', n: 1 },
      { type: 'Added', n: 10 },
      { type: 'Added', n: -6 },
    ]);
    expect(appends).toEqual(['no_stream', 0n, 1n]); // the failed try at 0, then at 1
    expect(reads).toEqual(['s', 's']);
  });

  it('a command the cached state rejects is decided again on the stream, which another process reopened', async () => {
    const { handle, elsewhere, history } = given();
    await handle('close');
    await elsewhere('s', { type: 'Opened' });
    await expect(handle({ add: 2 })).resolves.toMatchObject({ state: { sum: 2, closed: false }, revision: 2n });
    expect(await history('s')).toEqual([{ type: 'Closed' }, { type: 'Opened' }, { type: 'Added', n: 2 }]);
  });

  it('a rejection the stream confirms is still a rejection', async () => {
    const { handle, history } = given();
    await handle('close');
    await expect(handle({ add: 2 })).rejects.toBeInstanceOf(CommandRejected);
    expect(await history('s')).toEqual([{ type: 'Closed' }]);
  });

  it('a command that changes nothing on the cached state is decided again on the stream, which another process changed', async () => {
    const { handle, elsewhere, history } = given();
    await handle({ add: 5 });
    await elsewhere('s', { type: 'Added', n: 1 });
    await expect(handle({ set: 5 })).resolves.toMatchObject({ state: { sum: 5 }, revision: 2n, events: [{ type: 'Added', n: -1 }] });
    await expect(handle({ set: 5 })).resolves.toMatchObject({ events: [], revision: 2n, position: null });
    expect(await history('s')).toEqual([
      { type: 'Added', n: 5 },
      { type: 'Added', n: 1 },
      { type: 'Added', n: -1 },
    ]);
  });

  it('If-Match: the revision the client names is judged against the stream, not against a cache that is behind', async () => {
    const { handle, elsewhere, history } = given();
    await handle({ add: 1 });
    await elsewhere('s', { type: 'Added', n: 1 });
    // The client saw revision 1 (the other process's append): right, though the cache holds 0.
    await expect(handle({ add: 1 }, { expectedRevision: 1n })).resolves.toMatchObject({ revision: 2n, state: { sum: 3 } });
    // The client saw revision 2 and the cache holds 2, but the stream moved on: a stale If-Match, 412.
    await elsewhere('s', { type: 'Added', n: 1 });
    await expect(handle({ add: 1 }, { expectedRevision: 2n })).rejects.toBeInstanceOf(PreconditionFailed);
    expect(await history('s')).toHaveLength(4);
  });

  it('a race lost again after reading the stream is a ConcurrencyConflict (409), with nothing stored by either try', async () => {
    const { deps, store, handle, history } = given();
    await handle({ add: 1 });
    // Another process appends just before each of this handler's appends.
    let foreign = 0;
    const racing: EventStore = {
      ...store,
      read: deps.eventStore.read,
      append: async (stream, events, expected) => {
        const last = (await store.read(stream, {})).at(-1)!;
        await store.append(stream, [toNewEvent({ type: 'Added', n: 100 + foreign++ })], last.revision);
        return store.append(stream, events, expected);
      },
    };
    const error = await handleCommand({ ...deps, eventStore: racing }, 's', { add: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyConflict);
    expect(error).not.toBeInstanceOf(PreconditionFailed);
    expect(await history('s')).toEqual([
      { type: 'Added', n: 1 },
      { type: 'Added', n: 100 },
      { type: 'Added', n: 101 },
    ]);
  });
});
