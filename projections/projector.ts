import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../src/eventstore/eventStore';
import { PRESET_STREAM_PREFIX } from '../src/presets/streamName';
import { projectBatch } from './projectBatch';
import type { ReadModel } from './readmodel/readModel';

/**
 * The projector: follows the event store from the read model's checkpoint and writes what the
 * pure projection decides, with the checkpoint, in one `apply`. After a failure it starts again
 * from the stored checkpoint, so every event is applied once in effect (writes are idempotent).
 */
export const PROJECTOR_NAME = 'presets';

export interface Projector {
  /** Emits 'projected' (position, preset records written) once an event's changes are in the read model. */
  readonly events: EventEmitter;
  /** Position of the last event projected by this process, or the stored checkpoint. */
  position(): bigint | null;
  /** False while stopped after an error it could not get past (a malformed event). */
  healthy(): boolean;
  stop(): Promise<void>;
}

export interface ProjectorDeps {
  eventStore: EventStore;
  readModel: ReadModel;
  logger: Logger;
  name?: string;
  retryDelayMs?: number;
}

export const startProjector = async ({ eventStore, readModel, logger, name = PROJECTOR_NAME, retryDelayMs = 1000 }: ProjectorDeps): Promise<Projector> => {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let position = await readModel.checkpoint(name);
  let subscription: Subscription | null = null;
  let stopped = false;
  let healthy = true;
  let retry: NodeJS.Timeout | undefined;

  const project = async (recorded: RecordedEvent) => {
    const records = await projectBatch(readModel, [recorded], name);
    position = recorded.position;
    events.emit('projected', position, records);
  };

  const start = () => {
    subscription = eventStore.subscribe(position === null ? 'start' : { after: position }, project, {
      streamPrefix: PRESET_STREAM_PREFIX,
      onError: (error) => {
        healthy = false;
        logger.error({ err: error, position: position?.toString() ?? null }, 'projector stopped on an error; retrying from its checkpoint');
        if (!stopped) retry = setTimeout(restart, retryDelayMs);
      },
    });
  };
  const restart = async () => {
    await subscription?.stop();
    position = await readModel.checkpoint(name).catch(() => position);
    if (stopped) return;
    healthy = true;
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
    },
  };
};
