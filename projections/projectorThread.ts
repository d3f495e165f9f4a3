import { EventEmitter, once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../src/config';
import type { Projector } from './projector';
import type { PresetJson } from './readmodel/readModel';

/**
 * The service's projector in a worker thread: reading events, projecting and writing the read
 * model then take none of the time of the thread that serves HTTP. The main thread keeps the
 * projector's face (announcements for read-your-writes, position, health) from its messages.
 * Used when the compiled worker exists (the built service); tests from source project in-thread.
 */
export type ToProjectorThread = { kind: 'wake' } | { kind: 'stop' };
export type FromProjectorThread =
  | { kind: 'started'; position: bigint | null }
  | { kind: 'projected'; position: bigint; documents: PresetJson[] }
  | { kind: 'health'; healthy: boolean };

const STOP_TIMEOUT_MS = 30_000;
export const PROJECTOR_WORKER_FILE = join(__dirname, 'projectorWorker.js');
export const projectorThreadAvailable = (workerFile = PROJECTOR_WORKER_FILE) => existsSync(workerFile);

export interface ProjectorThread extends Projector {
  /** Events were appended in this process: look now rather than at the next poll. */
  wake(): void;
}

export interface ProjectorThreadOptions {
  config: Config;
  logger: Logger;
  workerFile?: string;
  /** After the thread dies unexpectedly, start a new one after this long. */
  restartDelayMs?: number;
  /** How often the embedded store is looked at without a wake (appends by other processes). */
  pollIntervalMs?: number;
}

export const startProjectorThread = async ({ config, logger, workerFile = PROJECTOR_WORKER_FILE, restartDelayMs = 1000, pollIntervalMs }: ProjectorThreadOptions): Promise<ProjectorThread> => {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let position: bigint | null = null;
  let healthy = false;
  let stopping = false;
  let worker: Worker | null = null;
  let restart: NodeJS.Timeout | undefined;

  const spawn = () => new Promise<void>((resolve, reject) => {
    // Its garbage is a batch's events and documents: 8 MB of young generation (V8's default is
    // larger) costs it nothing measurable and keeps the service's peak RSS under 200 MB.
    const w = new Worker(workerFile, { workerData: { config, pollIntervalMs }, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    worker = w;
    w.on('message', (message: FromProjectorThread) => {
      if (message.kind === 'projected') {
        position = message.position;
        events.emit('projected', message.position, message.documents);
      } else if (message.kind === 'health') healthy = message.healthy;
      else {
        position = message.position;
        healthy = true;
        resolve();
      }
    });
    w.once('error', (error) => {
      logger.error({ err: error }, 'projector thread failed');
      reject(error);
    });
    w.once('exit', (code) => {
      worker = null;
      healthy = false;
      if (stopping) return;
      logger.error({ code }, `projector thread exited; starting another in ${restartDelayMs} ms`);
      restart = setTimeout(() => spawn().catch(() => undefined), restartDelayMs);
    });
  });

  await spawn().catch((error: unknown) => {
    stopping = true;
    clearTimeout(restart);
    throw error;
  });
  let wakeQueued = false;
  return {
    events,
    position: () => position,
    healthy: () => healthy,
    wake() {
      // One message per turn of the event loop, however many appends it completed.
      if (wakeQueued) return;
      wakeQueued = true;
      setImmediate(() => {
        wakeQueued = false;
        worker?.postMessage({ kind: 'wake' } satisfies ToProjectorThread);
      });
    },
    async stop() {
      stopping = true;
      clearTimeout(restart);
      const w = worker;
      if (!w) return;
      const exited = once(w, 'exit');
      w.postMessage({ kind: 'stop' } satisfies ToProjectorThread);
      // It drains what it was given, closes its stores and ends; one that hangs is ended.
      const hung = setTimeout(() => void w.terminate(), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(hung);
    },
  };
};
