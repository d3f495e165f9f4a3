import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { hasStoredText, type EventFeed, type FeedEvent, type StoredTextFeed, type Subscription } from '../src/eventstore/eventFeed';
import { presetJsonOf } from './readmodel/documentJson';
import { projectBatch, recentDocuments } from './projectBatch';
import type { ProjectedEvents, ReadModel } from './readmodel/readModel';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';

/**
 * The projector: follows the event store from the read model's checkpoint and writes what the
 * pure projection decides, with the checkpoint, in one `apply`. Events that arrive together (a
 * page of a catch-up, a group commit under load) are applied together, up to MAX_BATCH. After a
 * failure it starts again from the stored checkpoint, so every event is applied once in effect
 * (writes are idempotent).
 */
export const PROJECTOR_NAME = 'presets';
const MAX_BATCH = 1000;
/** Documents of the streams written last, kept to save reading them back (projectBatch.ts). */
const RECENT_DOCUMENTS = 128;

/**
 * 'projected' once a batch's changes are in the read model (see ProjectedEvents), 'health' when the
 * projector stops on an error or starts again.
 */
export type ProjectorEvents = ProjectedEvents & { health: [healthy: boolean] };

export interface Projector {
  readonly events: EventEmitter<ProjectorEvents>;
  /** Position of the last event projected by this process, or the stored checkpoint. */
  position(): bigint | null;
  /** False while stopped after an error it could not get past (a malformed event). */
  healthy(): boolean;
  stop(): Promise<void>;
}

export interface ProjectorDeps {
  /** Followed as stored text where it has it (the embedded store): configs are not parsed and serialized again. */
  feed: EventFeed & Partial<StoredTextFeed>;
  readModel: ReadModel;
  logger: Logger;
  name?: string;
  retryDelayMs?: number;
}

export const startProjector = async ({
  feed,
  readModel,
  logger,
  name = PROJECTOR_NAME,
  retryDelayMs = 1000,
}: ProjectorDeps): Promise<Projector> => {
  const events = new EventEmitter<ProjectorEvents>();
  events.setMaxListeners(0);
  let position = await readModel.checkpoint(name);
  let subscription: Subscription | null = null;
  let stopped = false;
  let healthy = true;
  let retry: NodeJS.Timeout | undefined;
  let buffer: FeedEvent[] = [];
  const recent = recentDocuments(RECENT_DOCUMENTS);
  let draining: Promise<void> | null = null;
  let failure: unknown = null;

  const applyBuffered = async () => {
    while (buffer.length > 0) {
      const batch = buffer.splice(0, MAX_BATCH);
      const records = await projectBatch(readModel, batch, name, recent);
      position = batch[batch.length - 1]!.position;
      events.emit('projected', position, records.map(presetJsonOf));
    }
  };
  const drain = (): Promise<void> =>
    (draining ??= applyBuffered()
      .catch(fail)
      .finally(() => {
        draining = null;
        if (buffer.length > 0 && failure === null) setImmediate(drain); // buffered after the last look
      }));

  // The subscription awaits this before the next event: it returns at once, so a page gathers into
  // one batch, and waits only when the buffer is full (backpressure).
  const onEvent = async (recorded: FeedEvent) => {
    if (failure !== null) throw failure;
    buffer.push(recorded);
    if (buffer.length >= MAX_BATCH) await drain();
    else if (buffer.length === 1) setImmediate(drain);
  };

  function fail(error: unknown) {
    if (failure !== null) return;
    failure = error;
    healthy = false;
    events.emit('health', false);
    logger.error({ err: error, position: position?.toString() ?? null }, 'projector stopped on an error; retrying from its checkpoint');
    if (!stopped) retry = setTimeout(restart, retryDelayMs);
  }

  const start = () => {
    const from = position === null ? 'start' : { after: position };
    const options = { streamPrefix: WORKSPACE_STREAM_PREFIX, onError: fail };
    subscription = hasStoredText(feed) ? feed.subscribeStored(from, onEvent, options) : feed.subscribe(from, onEvent, options);
  };
  const restart = async () => {
    await subscription?.stop();
    await draining;
    buffer = [];
    recent.clear();
    position = await readModel.checkpoint(name).catch(() => position);
    if (stopped) return;
    failure = null;
    healthy = true;
    events.emit('health', true);
    start();
  };

  start();
  logger.info({ checkpoint: position?.toString() ?? null }, 'projector started');
  return {
    events,
    position: () => position,
    healthy: () => healthy,
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await subscription?.stop();
      if (failure === null) await drain(); // what was delivered reaches the read model
    },
  };
};
