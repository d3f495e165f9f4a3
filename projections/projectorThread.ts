import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { EventFeed, StoredTextFeed } from '../src/eventstore/eventFeed';
import { startSupervisedThread } from '../src/threads/supervisor';
import { serveThread } from '../src/threads/thread';
import { startProjector, type Projector, type ProjectorEvents } from './projector';
import type { ReadModel } from './readmodel/readModel';

/**
 * The projector in a thread of its own: reading events, projecting and writing the read model take
 * none of the time of the thread that serves HTTP. The parent keeps the projector's face
 * (announcements, position, health) from what the thread tells it, and starts another thread if
 * one dies. The thread's entry point belongs to the composition root (src/workers/projector.ts):
 * it opens the stores and hands them to `serveProjector`.
 */
// The thread tells where it starts before it is ready, so no announcement can come before the parent listens.
type ThreadEvents = ProjectorEvents & { started: [position: bigint | null] };

export interface ProjectorThreadOptions {
  /** The compiled entry point that calls `serveProjector`. */
  entry: string;
  /** What that entry needs to open its stores (plain data: it is copied to the thread). */
  data: unknown;
  logger: Logger;
  /** After the thread dies unexpectedly, start a new one after this long. */
  restartDelayMs?: number;
}

export const startProjectorThread = async ({ entry, data, logger, restartDelayMs = 1000 }: ProjectorThreadOptions): Promise<Projector> => {
  const events = new EventEmitter<ProjectorEvents>();
  events.setMaxListeners(0);
  let position: bigint | null = null;
  // The running thread's last word on its health; a thread that is not running (dead, or starting) is not healthy.
  let health = false;
  const supervised = await startSupervisedThread<Record<string, never>, ThreadEvents>({
    entry,
    kind: 'projector',
    data,
    logger,
    restartDelayMs,
    attach: (t) => {
      // Healthy once ready (as it says from then on).
      void t.ready.then(
        () => (health = true),
        () => undefined,
      );
      t.on('started', (at) => {
        position = at;
      });
      t.on('projected', (at, documents) => {
        position = at;
        events.emit('projected', at, documents);
      });
      t.on('health', (ok) => {
        health = ok;
      });
    },
  });
  return {
    events,
    position: () => position,
    healthy: () => supervised.current() !== null && health,
    // It drains what it was given, closes its stores and ends; one that hangs is ended.
    stop: () => supervised.stop(),
  };
};

export interface ProjectorStores {
  feed: EventFeed & Partial<StoredTextFeed>;
  readModel: ReadModel;
  logger: Logger;
  close(): Promise<void>;
}

/** The thread's side: the same projector as `npm run projector`, telling the parent what it projects. */
export const serveProjector = <Data>(open: (data: Data) => Promise<ProjectorStores>): void =>
  serveThread<{ stop(): Promise<void> }, ThreadEvents>(async (data: Data, parent) => {
    const { feed, readModel, logger, close } = await open(data);
    const projector = await startProjector({ feed, readModel, logger });
    projector.events.on('projected', (at, documents) => parent.emit('projected', at, documents));
    projector.events.on('health', (ok) => parent.emit('health', ok));
    parent.emit('started', projector.position());
    return {
      stop: async () => {
        await projector.stop();
        await close();
      },
    };
  });
