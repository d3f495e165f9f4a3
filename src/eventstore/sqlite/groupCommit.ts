import { storeFault } from '../../sqlite/connection';
import {
  ConcurrencyConflict,
  StoreUnavailable,
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
  type StreamName,
} from '../eventStore';
import { serializeEvent, type AppendRequest, type BatchOutcome } from './writer';

/** Where batches are committed: the writer's thread, or this thread's own connection (store.ts). */
export interface BatchWriter {
  write(batch: AppendRequest[]): Promise<BatchOutcome>;
  close(): Promise<void>;
}

export interface GroupCommitOptions {
  /** At most this many appends share one transaction. */
  maxBatch?: number;
  /** At most this many batches are with the writer at once. */
  maxInFlight?: number;
}

/**
 * One batch with the writer at a time: appends that come meanwhile wait and form the next. Two at
 * once (the writer starting on the second as soon as it has committed the first, instead of after
 * the first's answer has crossed back to this thread) was measured and made no difference to creates
 * or versions: docs/performance.md, "A second batch in flight".
 */
export const MAX_IN_FLIGHT = 1;
const MAX_BATCH = 256;

interface PendingAppend {
  stream: StreamName;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

/** An append as the writer takes it, or the error that makes it one no writer can take (a value with no JSON text). */
const serialized = ({ stream, events, expected }: PendingAppend): AppendRequest | Error => {
  const first = expected === 'no_stream' ? 0n : expected + 1n;
  try {
    return { stream, events: events.map((e, i) => serializeEvent(e, stream, first + BigInt(i))), expected };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
};

/**
 * The embedded store's group commit. Appends made in one turn of the event loop share a batch:
 * one transaction and one fsync, each append still checked against its own expected revision.
 * Appends that come while `maxInFlight` batches are with the writer wait and form the next one.
 * The writer commits batches one after another in the order they were sent, so more than one
 * batch in flight would change no outcome and no position's order, only when the writer starts on
 * each.
 */
export const groupCommit = (writer: Pick<BatchWriter, 'write'>, options: GroupCommitOptions = {}) => {
  const maxBatch = options.maxBatch ?? MAX_BATCH;
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  const pending: PendingAppend[] = [];
  /** The batches with the writer, until each has its answer. */
  const inFlight = new Set<Promise<void>>();

  const writeBatch = async (appends: PendingAppend[]) => {
    const batch: PendingAppend[] = [];
    const requests: AppendRequest[] = [];
    for (const p of appends) {
      const request = serialized(p);
      if (request instanceof Error) {
        p.reject(request);
        continue;
      }
      batch.push(p);
      requests.push(request);
    }
    if (batch.length === 0) return;
    let result: BatchOutcome;
    try {
      result = await writer.write(requests);
    } catch (error) {
      // Not sent (the writer's thread could not take the message): nothing of the batch was written.
      for (const p of batch) p.reject(error);
      return;
    }
    if (!result.ok) {
      const { code, message } = result.fault;
      const fault = code === 'WORKER' ? new StoreUnavailable(message) : storeFault(Object.assign(new Error(message), { code }));
      for (const p of batch) p.reject(fault);
      return;
    }
    result.outcomes.forEach((outcome, i) => {
      const p = batch[i]!;
      if (outcome.ok) p.resolve({ revision: outcome.revision, position: outcome.position });
      else p.reject(new ConcurrencyConflict(p.stream, outcome.expected, outcome.actual));
    });
  };

  /** Sends what waits, a batch at a time, while fewer than `maxInFlight` are with the writer. */
  const flush = () => {
    while (pending.length > 0 && inFlight.size < maxInFlight) {
      const sent: Promise<void> = writeBatch(pending.splice(0, maxBatch)).finally(() => {
        inFlight.delete(sent);
        flush();
      });
      inFlight.add(sent);
    }
  };

  return {
    append(stream: StreamName, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
      return new Promise((resolve, reject) => {
        pending.push({ stream, events, expected, resolve, reject });
        // Wait for the end of this turn of the event loop, so appends made together share a batch.
        if (pending.length === 1) setImmediate(flush);
      });
    },
    /** Until every append made so far has its answer. */
    async drain(): Promise<void> {
      flush();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
};
