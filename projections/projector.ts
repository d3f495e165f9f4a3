import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { hasStoredText, type EventFeed, type FeedEvent, type StoredTextFeed } from '../src/eventstore/eventFeed';
import type { RecordedEvent } from '../src/eventstore/eventStore';
import { startProcessor } from '../src/feed/processor';
import { sharedTail, type SharedTail } from '../src/feed/sharedTail';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';
import { presetJsonOf } from './readmodel/documentJson';
import { projectBatch, recentDocuments } from './projectBatch';
import type { ProjectedEvents, ReadModel } from './readmodel/readModel';
import { readModelCheckpoints } from './readModelCheckpoints';
import { storedTextTail } from '../src/feed/sharedFeed';

/**
 * The projector: a processor (src/feed/processor.ts) that follows the preset streams from the
 * read model's checkpoint and writes what the pure projection decides, with the checkpoint, in
 * one `apply`. Events that arrive together (a page of a catch-up, a group commit under load) are
 * applied together, up to MAX_BATCH. After a failure it starts again from the stored checkpoint,
 * so every event is applied once in effect (writes are idempotent).
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
  const recent = recentDocuments(RECENT_DOCUMENTS);
  // This thread's one reader of the log, as stored text where the store has it.
  const tail: SharedTail<FeedEvent> = hasStoredText(feed) ? storedTextTail(feed) : sharedTail<RecordedEvent>(feed);
  const processor = await startProcessor<FeedEvent>(
    {
      name,
      streamPrefix: WORKSPACE_STREAM_PREFIX,
      maxBatch: MAX_BATCH,
      // 1 s, 2 s, 4 s, 8 s, 8 s... (retryDelayMs, doubled up to eight times it).
      retry: { initialMs: retryDelayMs, maxMs: retryDelayMs * 8 },
      async handle(batch, { checkpoint }) {
        const records = await projectBatch(readModel, batch, name, recent);
        events.emit('projected', checkpoint, records.map(presetJsonOf));
        return 'checkpointed'; // with the documents, in one apply
      },
    },
    { tail, checkpoints: readModelCheckpoints(readModel), logger },
  );
  processor.events.on('health', (healthy) => {
    // Documents kept from before a failure may be ahead of the checkpoint it goes on from.
    if (!healthy) recent.clear();
    events.emit('health', healthy);
  });
  return {
    events,
    position: () => processor.position(),
    healthy: () => processor.healthy(),
    async stop() {
      await processor.stop(); // what was delivered reaches the read model
      await tail.close();
    },
  };
};
