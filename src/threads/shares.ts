import { serveThread, startThread, type ThreadKind } from './thread';

/**
 * Work split in `count` shares across threads: each thread opens what it needs from its data, runs
 * one share and tells the parent how far it got; the caller merges the reports. What a share is,
 * the work says: `npm run verify` folds a share of the streams (`streamShare`,
 * src/eventstore/streamReader.ts; projections/verifyThreads.ts), `npm run audit:verify` checks a
 * slice of the log's positions (src/audit/verify.ts).
 */
export interface Share {
  index: number;
  count: number;
}

/** Runs one piece of work for each share (in threads, or on the calling thread) and gives their reports, in share order. */
export type ShareRunner<Options, Report> = (options: Options, onProgress: (done: number) => void) => Promise<Report[]>;

type ShareApi<Report> = { run(): Promise<Report> };
type ShareEvents = { progress: [done: number] };

/**
 * `count` threads of `entry` (a compiled entry point that calls `serveShare`), each given `data`,
 * the options and its share; progress is each thread's own increments, as it reports them.
 */
export const runSharesInThreads =
  <Options extends object, Report>({
    count,
    entry,
    kind,
    data,
  }: {
    count: number;
    entry: string;
    kind: ThreadKind;
    data: object;
  }): ShareRunner<Options, Report> =>
  async (options, onProgress) => {
    const started: Array<ReturnType<typeof startThread<ShareApi<Report>, ShareEvents>>> = [];
    try {
      return await Promise.all(
        Array.from({ length: count }, async (_, index) => {
          const share: Share = { index, count };
          const thread = startThread<ShareApi<Report>, ShareEvents>(entry, kind, { ...data, ...options, share });
          started.push(thread);
          thread.on('progress', onProgress);
          await thread.ready;
          return thread.call('run');
        }),
      );
    } finally {
      await Promise.all(started.map((t) => t.stop()));
    }
  };

/**
 * A share's thread: `open` makes its connections from the thread's data (with `close`), `run`
 * does the share's work, reporting progress increments through `progress`.
 */
export const serveShare = <Data extends { share: Share }, Opened extends { close(): Promise<void> }, Report>(
  open: (data: Data) => Promise<Opened>,
  run: (opened: Opened, data: Data, progress: (done: number) => void) => Promise<Report>,
): void =>
  serveThread<ShareApi<Report> & { stop(): Promise<void> }, ShareEvents>(async (data: Data, parent) => {
    const opened = await open(data);
    return {
      run: () => run(opened, data, (done) => parent.emit('progress', done)),
      stop: () => opened.close(),
    };
  });
