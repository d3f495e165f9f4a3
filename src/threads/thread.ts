import { join } from 'node:path';
import { parentPort, Worker, workerData, type ResourceLimits } from 'node:worker_threads';
import { endpoint, type Api, type Endpoint, type Events } from './endpoint';

/**
 * Worker threads, the one way the service starts them.
 *
 * Thread or inline is decided here only: a thread's entry point is compiled JavaScript, so the
 * service uses threads when it runs compiled (`npm start`, `npm run rebuild`), and the same code
 * runs on the calling thread when it runs from TypeScript source (tests through ts-jest, which a
 * Worker cannot load). A test that wants a real thread names a compiled entry itself.
 */
export const RUNNING_COMPILED = __filename.endsWith('.js');

/** The compiled entry `name` beside the calling module, or undefined where threads are not used. */
export const threadEntry = (dir: string, name: string): string | undefined => (RUNNING_COMPILED ? join(dir, `${name}.js`) : undefined);

/**
 * Heap limits per thread. V8 sizes a young generation for a whole process; these threads make
 * little garbage, and four default heaps took the service past its memory budget. The
 * measurements behind each figure are in docs/performance.md.
 */
export const THREAD_HEAPS = {
  sqliteWriter: { maxYoungGenerationSizeMb: 2 },
  walCheckpointer: { maxYoungGenerationSizeMb: 1 },
  projector: { maxYoungGenerationSizeMb: 8 },
  deliverer: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 128 },
  rebuildLoader: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 64 },
  verifyLoader: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 64 },
} satisfies Record<string, ResourceLimits>;
export type ThreadKind = keyof typeof THREAD_HEAPS;

/** Some errors (better-sqlite3's own class) cross the thread boundary as a plain `{ message, code }`. */
const asError = (thrown: unknown, kind: ThreadKind): Error => {
  if (thrown instanceof Error) return thrown;
  const { message, code } = (thrown ?? {}) as { message?: string; code?: string };
  return Object.assign(new Error(message ?? `the ${kind} thread failed${code ? ` (${code})` : ''}`), { code });
};

/** A thread's own API always has `stop`: it finishes its work, closes what it opened and lets the thread end. */
type Stoppable = { stop(): Promise<void> };

export interface Thread<Remote extends Api, RemoteEvents extends Events> extends Pick<
  Endpoint<Remote & Stoppable, RemoteEvents, Events>,
  'call' | 'on' | 'serve'
> {
  /** Resolves once the thread has set itself up; rejects if it failed to. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code once the thread is gone, however it ended. */
  readonly exited: Promise<number>;
  /** Asks the thread to stop and waits for it; one that does not end within `timeoutMs` is terminated. */
  stop(timeoutMs?: number): Promise<void>;
}

export const startThread = <Remote extends Api, RemoteEvents extends Events = Events>(
  entry: string,
  kind: ThreadKind,
  data: unknown,
  /** The thread's heap limits, when its data asks for other than its kind's (THREAD_HEAPS). */
  resourceLimits: ResourceLimits = THREAD_HEAPS[kind],
): Thread<Remote, RemoteEvents> => {
  const worker = new Worker(entry, { workerData: data, resourceLimits });
  const port = endpoint<Remote & Stoppable, RemoteEvents & { ready: [] }>(worker);
  let failure: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    port.on('ready', () => resolve());
    worker.once('error', (thrown: unknown) => reject((failure = asError(thrown, kind))));
    worker.once('exit', (code) => reject(failure ?? new Error(`the ${kind} thread exited (code ${code}) before it was ready`)));
  });
  ready.catch(() => undefined); // a caller that never awaits it hears of the failure from `exited`
  const exited = new Promise<number>((resolve) =>
    worker.once('exit', (code) => {
      port.failAll(`the ${kind} thread stopped${failure ? `: ${failure.message}` : ''}`);
      resolve(code);
    }),
  );
  return {
    ready,
    exited,
    call: port.call,
    on: port.on,
    serve: port.serve,
    async stop(timeoutMs = 30_000) {
      const hung = setTimeout(() => void worker.terminate(), timeoutMs);
      await (port.call as unknown as (method: string) => Promise<unknown>)('stop').catch(() => undefined); // gone already, or failing: it ends either way
      await exited;
      clearTimeout(hung);
    },
  };
};

/**
 * The inside of a thread started by `startThread`: `setup` gets the thread's data and a way to
 * call and tell the parent, and returns what the parent may call. After `stop` the port closes and
 * the thread ends once its last handles are gone. A setup that throws ends the thread with that
 * error (the parent's `ready` rejects with it).
 */
export const serveThread = <Own extends Api & Stoppable, OwnEvents extends Events = Events, Parent extends Api = Api>(
  setup: (data: never, parent: Pick<Endpoint<Parent, Events, OwnEvents>, 'call' | 'emit'>) => Promise<Own>,
): void => {
  const port = endpoint<Parent, Events, OwnEvents & { ready: [] }>(parentPort!);
  void setup(workerData as never, port).then(
    (own) => {
      port.serve({
        ...own,
        stop: async () => {
          await own.stop();
          setImmediate(() => parentPort!.close()); // after the reply has been posted
        },
      });
      (port.emit as (name: string) => void)('ready');
    },
    (error: unknown) => {
      // Rethrown outside the promise: an uncaught error ends the thread with it ('error' in the parent).
      setImmediate(() => {
        throw error;
      });
    },
  );
};
