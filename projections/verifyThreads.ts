import { serveThread, startThread, type Thread } from '../src/threads/thread';
import type { ReadModel } from './readmodel/readModel';
import { verifyShare, type ShareOptions, type ShareReport, type ShareRunner, type Verifiable } from './verify';

/**
 * Verify in threads: each folds and compares one share of the streams (`verifyShare`) on its own
 * event-store and read-model connections, and tells the parent how many events it has done. The
 * parent merges the reports (verify.ts). `entry` is a compiled entry point that calls `serveVerifyShare`.
 */
type ShareApi = { run(): Promise<ShareReport> };
type ShareEvents = { events: [events: number] };

export const verifyInThreads =
  ({ count, entry, data }: { count: number; entry: string; data: unknown }): ShareRunner =>
  async (options, onEvents) => {
    const started: Array<Thread<ShareApi, ShareEvents>> = [];
    try {
      return await Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const share: ShareOptions = { ...options, share: { index, count } };
          const thread = startThread<ShareApi, ShareEvents>(entry, 'verifyLoader', { ...(data as object), ...share });
          started.push(thread);
          thread.on('events', onEvents);
          await thread.ready;
          return thread.call('run');
        }),
      );
    } finally {
      await Promise.all(started.map((t) => t.stop()));
    }
  };

/** A verifying thread's side. */
export const serveVerifyShare = <Data>(
  open: (data: Data) => Promise<{ eventStore: Verifiable; readModel: ReadModel; close(): Promise<void> }>,
): void =>
  serveThread<ShareApi & { stop(): Promise<void> }, ShareEvents>(async (data: Data & ShareOptions, parent) => {
    const { eventStore, readModel, close } = await open(data);
    return {
      run: () => verifyShare(eventStore, readModel, { ...data, onEvents: (n) => parent.emit('events', n) }),
      stop: close,
    };
  });
