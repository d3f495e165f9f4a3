import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SubscribeFrom, Subscription } from '../eventstore/eventFeed';
import type { CheckpointStore } from './checkpoints';
import type { TailEvent, TailSubscribeOptions, TailSubscription } from './sharedTail';

/**
 * The one home of everything that follows the log (a projector builds a read model, a reactor
 * reacts: webhook delivery, the key ring, audit checkpoints): a processor has a name, the stream
 * prefix and event types it handles, a checkpoint store (checkpoints.ts), and a batch handler. It
 * runs on a subscription of the shared tail (sharedTail.ts), from its stored checkpoint:
 *
 * - Events that arrive together (a catch-up page, a group commit) are handed to `handle` together,
 *   up to `maxBatch`; the subscription waits only while a full batch is being handled (backpressure).
 * - After a batch is handled, its last position is stored as the checkpoint, unless the handler
 *   stored it itself in its own transaction (it answers 'checkpointed': the read model).
 * - An event of a type it does not handle never reaches the handler and never stops it: it only
 *   moves the position (stored at most every `checkpointEveryMs`, and at stop).
 * - A handler that throws (or a feed that fails) is retried with back-off: the subscription stops,
 *   the processor waits (`retry.initialMs`, doubled each time up to `retry.maxMs`), reads its
 *   checkpoint again and subscribes from there; `healthy()` is false meanwhile. With
 *   `onFailure: 'end'` it ends instead (`ended`), for a follower that is started again from outside.
 *
 * Position and lag gauges are not kept here: src/observability/processorGauges.ts reads every
 * processor's checkpoint at scrape time, in one place.
 */
/** What a processor follows: the events it is handed (pulled.ts selects the same way for a consumer elsewhere). */
export interface ProcessorSelection {
  /** Only streams whose name starts with this (every stream when absent). */
  streamPrefix?: string;
  /** The event types it handles (every type when absent). */
  eventTypes?: readonly string[];
}

export interface ProcessorDefinition<E extends TailEvent> extends ProcessorSelection {
  /** Its checkpoint's name; also the name it logs with. */
  name: string;
  /**
   * Handles a batch of events (in log order, each of a handled type). `checkpoint` is the batch's
   * last position: a handler that writes it in its own transaction answers 'checkpointed'; one
   * that found nothing in it to act on (a filter of its own) answers 'skipped', and the checkpoint
   * moves as past events of other types.
   */
  handle(events: E[], context: { checkpoint: bigint }): Promise<void | 'checkpointed' | 'skipped'>;
  /** Most events in one batch (default 1000; 1 hands the events one at a time). */
  maxBatch?: number;
  retry?: RetryOptions;
  /** 'retry' (default): back off and go on from the checkpoint. 'end': stop and resolve `ended` with the error. */
  onFailure?: 'retry' | 'end';
  /** Skipped events (of other types) move the stored checkpoint at most this often (default 1 s; 0: at once). */
  checkpointEveryMs?: number;
  /**
   * Its position moves past the events the tail does not hand it (other types, other streams'
   * events seen by the tail) while it has nothing to handle; by default only for a processor that
   * names its types. One that handles every event of its streams otherwise stays at the last.
   */
  passScanned?: boolean;
}

export interface RetryOptions {
  /** The first wait after a failure (default 100 ms). */
  initialMs?: number;
  /** The longest wait (default 30 s). */
  maxMs?: number;
}

/** What a processor runs on: a live subscription (the shared tail) and where its checkpoint is. */
export interface ProcessorDeps<E extends TailEvent> {
  tail: { subscribe(from: SubscribeFrom, onEvent: (event: E) => Promise<void>, options?: TailSubscribeOptions): Subscription };
  checkpoints: CheckpointStore;
  logger?: ProcessorLogger;
  /** Waits before a retry; tests give a clock of their own. Rejects (or resolves) when `signal` aborts. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Milliseconds, for `checkpointEveryMs` (Date.now by default). */
  now?: () => number;
}

export interface ProcessorLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * 'handled' after each batch (its last position); 'health' when it fails or goes on again; 'live'
 * each time it has caught up with the log and follows its tail (after its start and each retry).
 */
export type ProcessorEvents = { handled: [position: bigint]; health: [healthy: boolean]; live: [] };

export interface Processor extends Readonly<ProcessorSelection> {
  readonly name: string;
  readonly events: EventEmitter<ProcessorEvents>;
  /** Every event up to here has been handled or passed by (null: nothing yet, no checkpoint). */
  position(): bigint | null;
  /** False from a failure until the retry that goes on. */
  healthy(): boolean;
  /** Resolves once the position has reached `position`. */
  reached(position: bigint): Promise<void>;
  /** Stops the subscription; what was handed over is handled and the checkpoint stored first (unless it failed). */
  stop(): Promise<void>;
  /** Resolves when it ended by itself (`onFailure: 'end'`), with why. */
  readonly ended: Promise<unknown>;
}

const DEFAULT_MAX_BATCH = 1000;
const DEFAULT_RETRY_MS = 100;
const DEFAULT_RETRY_MAX_MS = 30_000;
const DEFAULT_CHECKPOINT_EVERY_MS = 1000;

/** The wait before the `attempt`th retry (1, 2, ...): doubled each time, at most `maxMs`. */
export const backOff = (attempt: number, { initialMs = DEFAULT_RETRY_MS, maxMs = DEFAULT_RETRY_MAX_MS }: RetryOptions = {}): number =>
  Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));

const abortableSleep = (ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

export const startProcessor = async <E extends TailEvent>(
  definition: ProcessorDefinition<E>,
  { tail, checkpoints, logger, wait = abortableSleep, now = Date.now }: ProcessorDeps<E>,
): Promise<Processor> => {
  const { name, handle, streamPrefix, eventTypes, onFailure = 'retry' } = definition;
  const maxBatch = Math.max(1, definition.maxBatch ?? DEFAULT_MAX_BATCH);
  const checkpointEveryMs = definition.checkpointEveryMs ?? DEFAULT_CHECKPOINT_EVERY_MS;
  const handles = eventTypes ? new Set(eventTypes) : undefined;
  const passScanned = definition.passScanned ?? handles !== undefined;
  const events = new EventEmitter<ProcessorEvents>();
  events.setMaxListeners(0);
  const stopping = new AbortController();

  let position = await checkpoints.read(name);
  /** The last position written to the checkpoint store (by us or the handler). */
  let stored = position;
  let lastStoredAt = now();
  let subscription: Subscription | null = null;
  let buffer: E[] = [];
  let draining: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;
  /** A batch failed while stopping (its handler was interrupted): the position is the last handled, nothing past it. */
  let interrupted = false;
  let failures = 0;
  let healthy = true;
  let retrying: Promise<void> | undefined;
  const waiters = new Set<{ at: bigint; resolve: () => void; look?: NodeJS.Timeout }>();
  let endWith!: (reason: unknown) => void;
  const ended = new Promise<unknown>((resolve) => (endWith = resolve));

  const moved = (to: bigint) => {
    position = to;
    for (const w of [...waiters])
      if (to >= w.at) {
        waiters.delete(w);
        w.resolve();
      }
  };
  /** The last skipped batch's position, when its store was put off (checkpointEveryMs). */
  let unstored: bigint | null = null;
  const storeCheckpoint = async (at: bigint) => {
    if (unstored !== null && at >= unstored) unstored = null;
    if (stored !== null && at <= stored) return;
    await checkpoints.store(name, at);
    stored = at;
    lastStoredAt = now();
  };

  const handleBuffered = async () => {
    while (buffer.length > 0) {
      const batch = buffer.splice(0, maxBatch);
      const last = batch[batch.length - 1]!.position;
      const handled = handles ? batch.filter((e) => handles.has(e.type)) : batch;
      const outcome = handled.length > 0 ? await handle(handled, { checkpoint: last }) : 'skipped';
      if (outcome === 'checkpointed') {
        stored = last;
        lastStoredAt = now();
      } else if (outcome !== 'skipped' || now() - lastStoredAt >= checkpointEveryMs) await storeCheckpoint(last);
      else unstored = last;
      failures = 0;
      moved(last);
      events.emit('handled', last);
    }
  };
  const drain = (): Promise<void> =>
    (draining ??= handleBuffered()
      .catch(fail)
      .finally(() => {
        draining = null;
        if (buffer.length > 0 && failure === null) setImmediate(drain); // buffered after the last look
      }));

  // The subscription awaits this before the next event: it returns at once, so a page gathers into
  // one batch, and waits only when the buffer holds a full batch (backpressure).
  const onEvent = async (event: E) => {
    if (failure !== null) throw failure.error;
    buffer.push(event);
    if (buffer.length >= maxBatch) await drain();
    else if (buffer.length === 1) setImmediate(drain);
  };

  /**
   * Past the events of other types, which the tail does not hand over: where it has seen the log
   * up to. Only for a processor that names its types (one that handles every event of its streams
   * stays at the last one it handled).
   */
  const scannedPast = () => {
    if (!passScanned || interrupted || buffer.length > 0 || draining || failure) return;
    const scanned = (subscription as Partial<TailSubscription> | null)?.scanned?.();
    if (scanned !== undefined && (position === null || scanned > position)) moved(scanned);
  };
  // A skipped batch whose store was put off is stored once checkpointEveryMs has passed, even if
  // nothing comes after it. (Positions passed by the tail alone are stored at stop.)
  const timer = setInterval(
    () => {
      if (unstored !== null && now() - lastStoredAt >= checkpointEveryMs && !draining && !failure)
        storeCheckpoint(unstored).catch((error: unknown) =>
          logger?.warn({ err: error, processor: name }, 'could not store the checkpoint'),
        );
    },
    Math.max(50, Math.min(checkpointEveryMs, 1000)),
  );
  timer.unref();

  function fail(error: unknown) {
    if (stopping.signal.aborted) {
      interrupted = true;
      return;
    }
    if (failure !== null) return;
    failure = { error };
    failures++;
    healthy = false;
    events.emit('health', false);
    if (onFailure === 'end') {
      // Its owner says why (`ended`), and starts it again if it should.
      void subscription?.stop();
      endWith(error);
      return;
    }
    const delay = backOff(failures, definition.retry);
    logger?.error(
      { err: error, processor: name, position: position?.toString() ?? null, retryInMs: delay },
      'processor stopped on an error; retrying from its checkpoint',
    );
    retrying = restart(delay);
  }

  const subscribe = () => {
    subscription = tail.subscribe(position === null ? 'start' : { after: position }, onEvent, {
      streamPrefix,
      types: eventTypes,
      onError: fail,
      // Told once what the catch-up handed over is handled too.
      onLive: () =>
        void drain().then(() => {
          if (failure === null) events.emit('live');
        }),
    });
  };
  const restart = async (delay: number) => {
    await subscription?.stop();
    await draining;
    buffer = [];
    await wait(delay, stopping.signal);
    if (stopping.signal.aborted) return;
    try {
      position = (await checkpoints.read(name)) ?? position;
      stored = position;
    } catch (error) {
      // The checkpoint store cannot answer: try again later, from where this process has got to.
      failure = null;
      return fail(error);
    }
    if (stopping.signal.aborted) return;
    failure = null;
    healthy = true;
    events.emit('health', true);
    subscribe();
  };

  subscribe();
  logger?.info({ processor: name, checkpoint: position?.toString() ?? null }, 'processor started');
  return {
    name,
    streamPrefix,
    eventTypes,
    events,
    position: () => {
      scannedPast();
      return position;
    },
    healthy: () => healthy,
    reached: (at) =>
      new Promise<void>((resolve) => {
        scannedPast();
        if (position !== null && position >= at) return resolve();
        // Passing events the tail does not hand over tells nothing: it is looked at while someone waits.
        const look = passScanned && !stopping.signal.aborted ? setInterval(scannedPast, 10) : undefined;
        waiters.add({
          at,
          look,
          resolve: () => {
            clearInterval(look);
            resolve();
          },
        });
      }),
    // Aborts at once, before it awaits anything: a handler its owner interrupts right after (an
    // attempt in flight) is not taken for a failure, and the position stays at the last it handled.
    async stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      clearInterval(timer);
      for (const w of waiters) clearInterval(w.look);
      await subscription?.stop();
      await retrying;
      if (failure === null) {
        await drain(); // what was handed over is handled
        if (failure === null) {
          scannedPast();
          if (position !== null) await storeCheckpoint(position).catch(() => undefined);
        }
      }
      endWith(undefined);
    },
    ended,
  };
};
