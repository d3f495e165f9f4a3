import { LRUCache } from 'lru-cache';
import type { EventStore, RecordedEvent, StreamName } from './eventStore';

/**
 * A stream's state as a decider folds it from the stream's events, and the revision it reflects
 * (null: the stream does not exist).
 */
export interface Folded<State> {
  state: State;
  revision: bigint | null;
}

export interface StreamStates<State> {
  /** The stream's state as of its last event; `from`, a state known at a revision, saves reading what came before. */
  load(stream: StreamName, from?: Folded<State>): Promise<Folded<State>>;
  /** An append left the stream in this state: a cache keeps it, the store itself needs nothing. */
  saved(stream: StreamName, folded: Folded<State>): void;
  /**
   * The state last known here, without reading the store: it may be behind the stream (another
   * process appended), so it is only good for an append that expects its revision (commandHandler.ts).
   */
  cached?(stream: StreamName): Folded<State> | undefined;
}

export interface Fold<State, Event> {
  evolve(state: State, event: Event): State;
  initialState(): State;
  /** A stored event as the decider knows it (validated, upcast). */
  decode(recorded: RecordedEvent): Event;
}

/** Reads the stream (after `from`, when given) and folds its events. */
export const foldFromStore = <State, Event>(store: Pick<EventStore, 'read'>, fold: Fold<State, Event>): StreamStates<State> => ({
  async load(stream, from) {
    const newer = await store.read(stream, { fromRevision: from?.revision == null ? 0n : from.revision + 1n });
    const start = from ?? { state: fold.initialState(), revision: null };
    if (newer.length === 0) return start;
    return {
      state: newer.reduce((state, recorded) => fold.evolve(state, fold.decode(recorded)), start.state),
      revision: newer[newer.length - 1]!.revision,
    };
  },
  saved: () => undefined,
});

/**
 * Keeps the folded state of the `max` streams used last, so a command reads only the events after
 * it (usually none) and a stream with many events costs no more than a new one. `load` always reads
 * forward from what it holds, so another process's appends are never missed; `cached` answers
 * without reading, for the command handler's optimistic append.
 */
export const withStateCache = <State>(inner: StreamStates<State>, max: number): StreamStates<State> => {
  const cache = new LRUCache<StreamName, Folded<State>>({ max });
  return {
    async load(stream) {
      const folded = await inner.load(stream, cache.get(stream));
      if (folded.revision !== null) cache.set(stream, folded);
      return folded;
    },
    saved(stream, folded) {
      cache.set(stream, folded);
      inner.saved(stream, folded);
    },
    cached: (stream) => cache.get(stream),
  };
};
