import { readStreamsToFold, type StreamReader } from '../src/eventstore/streamReader';
import type { Events } from '../src/threads/endpoint';
import { serveThread, startThread, type Thread } from '../src/threads/thread';
import { foldStreams } from './foldStreams';
import type { ProjectionChange } from './readmodel/readModel';
import { plainChange } from './readmodel/documentJson';
import { sqliteRows } from './readmodel/sqlite';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';

/**
 * The bulk of a rebuild: every preset stream up to `until`, folded (foldStreams.ts) and written.
 * With `threads`, that many threads each read, decode, fold and encode one share of the streams
 * from their own event-store connection, and this thread only writes what they send: the SQLite
 * target takes rows whose JSON the threads already made, a target that takes objects (MongoDB)
 * plain JSON objects (`plainChange`: a config the fold kept as its text is parsed there, since no
 * class survives the thread's structured clone). Without threads, the same fold runs here.
 */
export type Encoding = 'sqlite' | 'changes';
export const ENCODERS: Record<Encoding, (changes: ProjectionChange[]) => unknown> = {
  sqlite: sqliteRows,
  changes: (changes) => changes.map(plainChange),
};

/** Where the fold's changes go: made with `ENCODERS[encoding]` where the fold runs, written here, in turn. */
export interface BulkWriter {
  encoding: Encoding;
  write(payload: unknown): Promise<void>;
  /** After the last write, before anything reads the target (its deferred indexes). */
  finish?(): Promise<void>;
}

export interface LoadOptions {
  until: bigint;
  writer: BulkWriter;
  /** Called after each write with the events it covered. */
  onEvents?: (events: number) => void;
  pageSize?: number;
  /**
   * Fold in `count` threads, each running `entry` (a compiled entry point that calls
   * `serveLoadShare`), which opens its own event store from `data`.
   */
  threads?: { count: number; entry: string; data: unknown };
}

/** Writes a thread may have asked for and not yet seen done: keeps it busy, and memory bounded. */
export const IN_FLIGHT = 2;
/**
 * Small pages: a thread holds a page and one preset with its versions, within the heap
 * src/threads/thread.ts gives it (docs/performance.md says how these were chosen).
 */
export const PAGE_EVENTS = 100;

interface ShareData {
  until: bigint;
  share: { index: number; count: number };
  encoding: Encoding;
  pageSize: number;
}
type ShareApi = { run(): Promise<number> };
type WriterApi = { write(payload: unknown, events: number): Promise<void> };

export const loadStreams = async (
  reader: StreamReader,
  { until, writer, onEvents, pageSize = PAGE_EVENTS, threads }: LoadOptions,
): Promise<number> => {
  if (!threads || threads.count < 1) {
    const encode = ENCODERS[writer.encoding];
    const pages = readStreamsToFold(reader, { until, streamPrefix: WORKSPACE_STREAM_PREFIX, pageSize });
    return foldStreams(pages, async (changes, events) => {
      await writer.write(encode(changes));
      onEvents?.(events);
    });
  }
  const started: Array<Thread<ShareApi, Events>> = [];
  let writes = Promise.resolve(); // one write at a time, in arrival order
  let failure: unknown;
  const write = (payload: unknown, events: number) => {
    const done = writes.then(async () => {
      await writer.write(payload);
      onEvents?.(events);
    });
    writes = done.catch((error: unknown) => {
      failure ??= error;
    });
    return done;
  };
  try {
    const counts = await Promise.all(
      Array.from({ length: threads.count }, async (_, index) => {
        const data: ShareData = { until, share: { index, count: threads.count }, encoding: writer.encoding, pageSize };
        const thread = startThread<ShareApi>(threads.entry, 'rebuildLoader', { ...(threads.data as object), ...data });
        started.push(thread);
        thread.serve({ write });
        await thread.ready;
        return thread.call('run');
      }),
    ).catch((error: unknown) => {
      throw failure ?? error; // a failed write fails its thread's fold too: report the write's own error
    });
    await writes;
    if (failure) throw failure;
    return counts.reduce((a, b) => a + b, 0);
  } finally {
    await Promise.all(started.map((t) => t.stop()));
  }
};

/** A loading thread's side: folds one share of the streams, asks the parent to write each page. */
export const serveLoadShare = <Data>(open: (data: Data) => Promise<{ reader: StreamReader; close(): Promise<void> }>): void =>
  serveThread<ShareApi & { stop(): Promise<void> }, Record<string, never>, WriterApi>(async (data: Data & ShareData, parent) => {
    const { reader, close } = await open(data);
    return {
      run: async () => {
        const encode = ENCODERS[data.encoding];
        const unanswered = new Set<Promise<void>>();
        const pages = readStreamsToFold(reader, {
          until: data.until,
          streamPrefix: WORKSPACE_STREAM_PREFIX,
          pageSize: data.pageSize,
          share: data.share,
        });
        const events = await foldStreams(pages, async (changes, n) => {
          while (unanswered.size >= IN_FLIGHT) await Promise.race(unanswered);
          const written: Promise<void> = parent.call('write', encode(changes), n).finally(() => unanswered.delete(written));
          written.catch(() => undefined); // a failed write is reported once, where it is awaited
          unanswered.add(written);
        });
        await Promise.all(unanswered);
        return events;
      },
      stop: close,
    };
  });
