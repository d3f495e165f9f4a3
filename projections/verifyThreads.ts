import { runSharesInThreads, serveShare, type Share } from '../src/threads/shares';
import type { ReadModel } from './readmodel/readModel';
import { verifyShare, type ShareOptions, type ShareReport, type ShareRunner, type Verifiable } from './verify';

/**
 * Verify in threads (src/threads/shares.ts): each folds and compares one share of the streams
 * (`verifyShare`) on its own event-store and read-model connections, and tells the parent how
 * many events it has done. The parent merges the reports (verify.ts). `entry` is a compiled entry
 * point that calls `serveVerifyShare`.
 */
export const verifyInThreads = ({ count, entry, data }: { count: number; entry: string; data: object }): ShareRunner =>
  runSharesInThreads<Omit<ShareOptions, 'share' | 'onEvents'>, ShareReport>({ count, entry, kind: 'verifyLoader', data });

/** A verifying thread's side. */
export const serveVerifyShare = <Data>(
  open: (data: Data) => Promise<{ eventStore: Verifiable; readModel: ReadModel; close(): Promise<void> }>,
): void =>
  serveShare<Data & ShareOptions & { share: Share }, Awaited<ReturnType<typeof open>>, ShareReport>(open, (opened, data, progress) =>
    verifyShare(opened.eventStore, opened.readModel, { ...data, onEvents: progress }),
  );
