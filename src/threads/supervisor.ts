import type { ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Api, Events } from './endpoint';
import { startThread, type Thread, type ThreadKind } from './thread';

/**
 * A thread that is started again when it dies: what a long-running part of the service (the
 * projector, the webhook deliverer) needs so that one uncaught error does not stop it until the
 * next restart.
 * `attach` wires each new thread's events before it is ready; `current()` is the thread running
 * now (null between a death and the next start). `stop()` stops it and starts no other.
 */
export interface SupervisedThread<Remote extends Api, RemoteEvents extends Events> {
  current(): Thread<Remote, RemoteEvents> | null;
  stop(): Promise<void>;
}

export interface SupervisedThreadOptions<Remote extends Api, RemoteEvents extends Events> {
  entry: string;
  kind: ThreadKind;
  data: unknown;
  logger: Logger;
  attach(thread: Thread<Remote, RemoteEvents>): void;
  /** After the thread dies unexpectedly, start a new one after this long. */
  restartDelayMs?: number;
  /** The threads' heap limits, when other than their kind's (THREAD_HEAPS). */
  resourceLimits?: ResourceLimits;
}

/** Resolves once the first thread is ready; rejects (and starts no other) if it fails to set itself up. */
export const startSupervisedThread = async <Remote extends Api, RemoteEvents extends Events>(
  options: SupervisedThreadOptions<Remote, RemoteEvents>,
): Promise<SupervisedThread<Remote, RemoteEvents>> => {
  const { entry, kind, data, logger, attach, restartDelayMs = 1000, resourceLimits } = options;
  // The latest thread started, ready or still starting (so that `stop` stops one that is starting).
  let thread: Thread<Remote, RemoteEvents> | null = null;
  let ready = false;
  let stopping = false;
  let restart: NodeJS.Timeout | undefined;

  const spawn = async () => {
    const t = startThread<Remote, RemoteEvents>(entry, kind, data, resourceLimits);
    thread = t;
    ready = false;
    attach(t);
    void t.exited.then((code) => {
      if (thread === t) [thread, ready] = [null, false];
      if (stopping) return;
      logger.error({ code }, `${kind} thread exited; starting another in ${restartDelayMs} ms`);
      restart = setTimeout(() => void spawn().catch(() => undefined), restartDelayMs);
    });
    try {
      await t.ready;
    } catch (error) {
      logger.error({ err: error }, `${kind} thread failed`);
      throw error;
    }
    if (thread === t) ready = true;
  };

  await spawn().catch((error: unknown) => {
    stopping = true;
    clearTimeout(restart);
    throw error;
  });
  return {
    current: () => (ready ? thread : null),
    async stop() {
      stopping = true;
      clearTimeout(restart);
      await thread?.stop();
    },
  };
};
