import type { RecordedEvent } from '../eventstore/eventStore';
import { sharedPageReads } from './sharedPages';
import { readerTypes } from './readerTypes';
import type { ReadAllOptions, SubscribeFrom, SubscribeOptions, Subscription } from '../eventstore/eventFeed';

/**
 * One reader of the log per process, shared by every live subscriber (SSE clients, webhook
 * delivery loops, and whatever else follows the log in this process).
 *
 * The store's own `subscribe` polls or streams the log for each subscription, so N subscribers
 * read every new event N times, and an idle one keeps re-reading the same tail. Here the store is
 * subscribed to once (from its head, for every type or only its subscribers': readerTypes.ts),
 * and each event it delivers, decoded once, is handed to the subscribers whose stream prefix and
 * types match: a dictionary lookup per
 * distinct prefix length, so the cost of a new event does not grow with the number of
 * subscribers, and an idle subscriber costs nothing but its entry. Over a store: sharedFeed.ts.
 *
 * A subscriber that starts from an older position first reads its own range through the store's
 * filtered `readAll` (bounded pages, which the stores answer through their workspace index), then
 * joins the tail: it is registered before its first read, so what the tail hands out meanwhile is
 * buffered and nothing falls between the two. A subscriber whose buffer fills (a slow consumer)
 * drops the buffer and goes back to reading its own range from where it is: memory stays bounded
 * and nothing is lost.
 *
 * Subscribers that read the same range share the reads (sharedPages.ts): each event of the range
 * is read and decoded once for all of them, and they hold the same event objects.
 *
 * Its position (`scanned()`) is the position up to which it has seen the log, not the last event
 * it was handed: a live subscriber with nothing pending is at the tail, however long ago its own
 * workspace last had an event.
 *
 * With no subscriber left for `idleStopMs` (the last SSE client gone, every webhook paused), it
 * stops following the store, so a thread nobody listens on reads no commit; the next subscriber
 * starts it again from the store's head, as the first one did.
 */
export interface TailSubscription extends Subscription {
  /** Every event up to this position that matches the filter has been handled (0n: none yet). */
  scanned(): bigint;
}

/** What the tail reads: pages and a subscription of one kind of event (parsed, or as stored text). */
export interface TailSource<E extends TailEvent> {
  readAll(options: ReadAllOptions & { after?: bigint }): Promise<E[]>;
  subscribe(from: SubscribeFrom, onEvent: (event: E) => Promise<void>, options?: SubscribeOptions): Subscription;
  headPosition(): Promise<bigint | null>;
  /** Its subscriptions tell how far they have read (EventFeed.reportsScanned): only then does the reader read only its subscribers' types. */
  readonly reportsScanned?: boolean;
}
export type TailEvent = Pick<RecordedEvent, 'position' | 'stream' | 'type'>;

export interface TailSubscribeOptions extends SubscribeOptions {
  /** Called each time the subscriber has read its own range and follows the tail (caught up). */
  onLive?: () => void;
}

/** The live side of a feed: subscriptions through the one shared reader. */
export interface SharedTail<E extends TailEvent> {
  subscribe(from: SubscribeFrom, onEvent: (event: E) => Promise<void>, options?: TailSubscribeOptions): TailSubscription;
  /** Live subscribers now (catching up or following the tail). */
  readonly subscribers: number;
  /** Stops every subscriber and the one subscription to the store. */
  close(): Promise<void>;
}

export interface SharedTailOptions {
  /** Events per catch-up read. */
  pageSize?: number;
  /** Events a subscriber may have waiting before it falls back to reading its own range. */
  queueLimit?: number;
  /** Full catch-up pages kept for other subscribers reading the same range (0: none). */
  sharedPages?: number;
  /**
   * Where the tail can tell an event's size (stored text): about how many bytes of events a
   * catch-up page and a subscriber's buffer may hold. A subscriber's first page is `firstPage`
   * events; each next one is sized from the last one's events, at most twice as many, at most
   * `pageSize`: a range of large events is read a few at a time, so the pages held do not grow
   * with the events' size. A buffer past it is dropped, as one past `queueLimit`.
   */
  pageBytes?: number;
  /** Events in a subscriber's first catch-up page where sizes are known (default 16): its size is known only once it is read. */
  firstPage?: number;
  /** With no subscriber for this long, the one subscription to the store is stopped (default 1 s). */
  idleStopMs?: number;
  /** The store's subscription reads new events at most this often (SubscribeOptions.readEveryMs; default 0: at each commit). */
  readEveryMs?: number;
}

const DEFAULT_PAGE = 512;
const DEFAULT_QUEUE = 1024;
const DEFAULT_SHARED_PAGES = 4;
const DEFAULT_PAGE_BYTES = 4 * 1024 * 1024;
const DEFAULT_FIRST_PAGE = 16;
const DEFAULT_IDLE_STOP_MS = 1000;

/** The next catch-up page's length after a full one: what `pageBytes` holds of events of its events' mean size. */
export const nextPageLength = (last: number, pageBytes: number, lastBytes: number, pageSize: number): number => {
  const fits = Math.floor(pageBytes / Math.max(1, lastBytes / last));
  return Math.max(1, Math.min(fits, last * 2, pageSize));
};

interface Subscriber<E> {
  prefix: string;
  types: ReadonlySet<string> | undefined;
  /** Every matching event up to here has been handled. */
  position: bigint;
  /** Events from the tail not handled yet (positions increase), and their size (when the tail can tell it). */
  queue: E[];
  queueBytes: number;
  /** The queue was dropped because it was full: read the range again from `position`. */
  overflowed: boolean;
  /** Following the tail (false while reading its own range). */
  live: boolean;
  handling: boolean;
  stopped: boolean;
  wake: (() => void) | undefined;
  /** The shared reader failed: the subscriber ends with this error. */
  failure?: { error: unknown };
}

/** The one reader and its subscribers, for events of either kind (this module's comment). */
export const sharedTail = <E extends TailEvent>(
  feed: TailSource<E>,
  options: SharedTailOptions = {},
  /** An event's size in bytes, where the tail can tell it cheaply (stored text): pages and buffers are then bounded by `pageBytes` too. */
  sizeOf?: (event: E) => number,
): SharedTail<E> => {
  const pageSize = options.pageSize ?? DEFAULT_PAGE;
  const queueLimit = options.queueLimit ?? DEFAULT_QUEUE;
  const sharedPages = options.sharedPages ?? DEFAULT_SHARED_PAGES;
  const pageBytes = options.pageBytes ?? DEFAULT_PAGE_BYTES;
  const firstPage = Math.max(1, options.firstPage ?? DEFAULT_FIRST_PAGE);
  const idleStopMs = options.idleStopMs ?? DEFAULT_IDLE_STOP_MS;
  const pages = sharedPageReads<E>((o) => feed.readAll(o), sharedPages);
  /** Subscribers by stream prefix, and the distinct prefix lengths to look up for each event. */
  const byPrefix = new Map<string, Set<Subscriber<E>>>();
  const lengths = new Map<number, number>(); // prefix length → how many prefixes of that length
  /** How each live subscriber is stopped. */
  const running = new Set<() => Promise<void>>();
  /** Every event up to here has been handed out by the tail. */
  let tailPosition = 0n;
  /** The reader, and the types it reads (readerTypes.ts: its key `typesKey`). */
  type TailState = { started: Promise<void>; subscription?: Subscription; typesKey: string };
  let tail: TailState | undefined;
  const reading = readerTypes(feed.reportsScanned === true);
  /** Stops the reader once no subscriber has come back for idleStopMs. */
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const failures = new Set<(error: unknown) => void>();

  const add = (s: Subscriber<E>) => {
    let set = byPrefix.get(s.prefix);
    if (!set) {
      byPrefix.set(s.prefix, (set = new Set()));
      lengths.set(s.prefix.length, (lengths.get(s.prefix.length) ?? 0) + 1);
    }
    if (set.has(s)) return;
    set.add(s);
    reading.count(s.types, 1);
    retarget();
  };
  const remove = (s: Subscriber<E>) => {
    const set = byPrefix.get(s.prefix);
    if (!set?.delete(s)) return;
    reading.count(s.types, -1);
    retarget();
    if (set.size > 0) return;
    byPrefix.delete(s.prefix);
    const n = (lengths.get(s.prefix.length) ?? 1) - 1;
    if (n === 0) lengths.delete(s.prefix.length);
    else lengths.set(s.prefix.length, n);
  };

  /** Hands one event of the current reader to every subscriber it matches; synchronous, so the tail never waits on one. */
  const dispatch = (from: TailState) => async (event: E) => {
    if (tail !== from) return; // a reader stopped or replaced: what it still hands out is not the tail
    for (const length of lengths.keys()) {
      if (event.stream.length < length) continue;
      const set = byPrefix.get(event.stream.slice(0, length));
      if (!set) continue;
      for (const s of set) {
        if (s.overflowed || (s.types && !s.types.has(event.type))) continue;
        const size = sizeOf ? sizeOf(event) : 0;
        if (s.queue.length >= queueLimit || (s.queue.length > 0 && s.queueBytes + size > pageBytes)) {
          // A consumer this far behind reads its range again rather than hold more here.
          s.overflowed = true;
          s.queue = [];
          s.queueBytes = 0;
        } else {
          s.queue.push(event);
          s.queueBytes += size;
        }
        s.wake?.();
      }
    }
    tailPosition = event.position;
  };

  /**
   * Starts the reader from the store's head, or from `after` (a reader replaced by one of other
   * types goes on from where the one before has handed out: nothing falls between the two).
   */
  const startTail = (after?: Promise<bigint | undefined>) => {
    if (tail) return tail;
    const current = () => tail === state; // not replaced by a newer reader (after a failure, an idle stop or other types) or closed
    const reads = reading.wanted();
    const state: TailState = { started: Promise.resolve(), typesKey: reading.key(reads) };
    state.started = (async () => {
      const from = (await after) ?? (await feed.headPosition()) ?? 0n;
      if (closed || !current()) return;
      tailPosition = from;
      state.subscription = feed.subscribe({ after: tailPosition }, dispatch(state), {
        types: reads,
        readEveryMs: options.readEveryMs,
        // Read only some types, the reader is past the others as far as the store has read.
        onScanned: reads
          ? (position) => {
              if (current() && position > tailPosition) tailPosition = position;
            }
          : undefined,
        onError: (error) => {
          // The one reader failed: every subscriber ends (each says so its own way: an SSE
          // client reconnects with Last-Event-ID, a webhook loop restarts at the next resync),
          // and the next subscriber starts a new reader.
          if (current()) tail = undefined;
          for (const fail of [...failures]) fail(error);
        },
      });
    })();
    // A reader that could not start (its head read failed) is not kept: the next subscriber starts another.
    state.started.catch(() => void (tail === state && (tail = undefined)));
    tail = state;
    return state;
  };
  const stopTail = async () => {
    const current = tail;
    tail = undefined;
    await current?.started.catch(() => undefined);
    await current?.subscription?.stop();
  };
  /**
   * The subscribers' types changed (one came or went): a running reader of other types is replaced
   * by one of these, from where it has handed out. What the old one still hands out is not the
   * tail's (dispatch), and the new one reads it again.
   */
  function retarget() {
    const running = tail;
    if (!running || closed || running.typesKey === reading.key(reading.wanted())) return;
    tail = undefined;
    // One that never got to read (replaced while it asked for the head) hands nothing: the next reads the head.
    const handedOut = running.started.then(
      async () => {
        if (!running.subscription) return undefined;
        await running.subscription.stop();
        return tailPosition;
      },
      () => undefined,
    );
    startTail(handedOut);
  }
  /** The last subscriber gone: the reader stops after idleStopMs unless one comes back. */
  const whenIdle = () => {
    if (running.size > 0 || closed || !tail) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (running.size === 0) void stopTail();
    }, idleStopMs).unref();
  };

  const waitForWork = (s: Subscriber<E>) =>
    new Promise<void>((resolve) => {
      if (s.stopped || s.queue.length > 0 || s.overflowed || s.failure) return resolve();
      s.wake = () => {
        s.wake = undefined;
        resolve();
      };
    });

  return {
    get subscribers() {
      return running.size;
    },

    subscribe(from, onEvent, { streamPrefix = '', types, onError, onLive } = {}) {
      if (closed) throw new Error('the shared feed is closed');
      clearTimeout(idleTimer);
      const s: Subscriber<E> = {
        prefix: streamPrefix,
        types: types ? new Set(types) : undefined,
        position: from === 'start' ? 0n : from.after,
        queue: [],
        queueBytes: 0,
        overflowed: false,
        live: false,
        handling: false,
        stopped: false,
        wake: undefined,
      };
      const handle = async (event: E) => {
        s.handling = true;
        try {
          await onEvent(event);
        } finally {
          s.handling = false;
        }
        s.position = event.position;
      };

      const fail = (error: unknown) => {
        s.failure = { error };
        s.wake?.();
      };
      failures.add(fail);
      const check = () => {
        if (s.failure) throw s.failure.error;
      };
      const loop = (async () => {
        try {
          while (!s.stopped) {
            // Read its own range, registered first so that the tail buffers what comes meanwhile.
            s.live = false;
            s.overflowed = false;
            s.queue = [];
            s.queueBytes = 0;
            add(s);
            await startTail().started;
            check();
            const joinedAt = tailPosition; // every event up to here is stored, so the reads below see it
            // Pages of a known size start small and grow to what pageBytes holds (SharedTailOptions).
            let limit = sizeOf ? Math.min(pageSize, firstPage) : pageSize;
            for (;;) {
              const page = await pages.read({ after: s.position, limit, streamPrefix: s.prefix || undefined, types });
              check();
              for (const event of page) {
                if (s.stopped) return;
                await handle(event);
              }
              if (page.length < limit || s.stopped) break;
              if (sizeOf)
                limit = nextPageLength(
                  limit,
                  pageBytes,
                  page.reduce((bytes, e) => bytes + sizeOf(e), 0),
                  pageSize,
                );
            }
            // A short page: everything stored when it was read has been seen, the tail's position included.
            if (s.position < joinedAt) s.position = joinedAt;
            s.live = true;
            onLive?.();
            while (!s.stopped && !s.overflowed) {
              const event = s.queue.shift();
              if (event && sizeOf) s.queueBytes -= sizeOf(event);
              if (!event) {
                await waitForWork(s);
                check();
                continue;
              }
              if (event.position > s.position) await handle(event);
            }
          }
        } catch (error) {
          // Not at the tail: an event it was handed may not have been handled (a handler that threw).
          s.live = false;
          if (!s.stopped) onError?.(error);
        } finally {
          remove(s);
          failures.delete(fail);
        }
      })();

      let stopping: Promise<void> | undefined;
      const stop = () =>
        (stopping ??= (async () => {
          s.stopped = true;
          remove(s);
          s.wake?.();
          await loop;
        })());
      running.add(stop);
      void loop.then(() => {
        running.delete(stop);
        whenIdle();
      });
      return {
        scanned: () =>
          s.live && !s.handling && s.queue.length === 0 && !s.overflowed && tailPosition > s.position ? tailPosition : s.position,
        stop,
      };
    },

    async close() {
      closed = true;
      clearTimeout(idleTimer);
      await Promise.all([...running].map((stop) => stop()));
      await stopTail();
      pages.clear();
    },
  };
};
