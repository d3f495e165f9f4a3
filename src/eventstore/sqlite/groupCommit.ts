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

/** Where a batch is committed: the writer's thread, or the store's own connection (store.ts). */
type CommitBatch = (batch: AppendRequest[]) => Promise<BatchOutcome>;

/** At most this many appends share one transaction. */
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
 * One batch is with the writer at a time; appends that come meanwhile wait and form the next.
 * (Sending the next batch before the last one's answer was measured and gained nothing:
 * docs/performance.md, "Tried and not kept".)
 */
export const groupCommit = (write: CommitBatch, { maxBatch = MAX_BATCH }: { maxBatch?: number } = {}) => {
  const pending: PendingAppend[] = [];
  /** The batch with the writer, until it has its answer. */
  let sending: Promise<void> | null = null;

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
      result = await write(requests);
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

  /** Sends what waits as one batch, unless a batch is with the writer: its answer sends the next. */
  const flush = () => {
    if (sending || pending.length === 0) return;
    sending = writeBatch(pending.splice(0, maxBatch)).finally(() => {
      sending = null;
      flush();
    });
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
      while (sending) await sending;
    },
  };
};
