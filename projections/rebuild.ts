import type { EventFeed } from '../src/eventstore/eventFeed';
import type { RecordedEvent } from '../src/eventstore/eventStore';
import type { StreamReader } from '../src/eventstore/streamReader';
import { projectBatch } from './projectBatch';
import { PROJECTOR_NAME } from './projector';
import { loadStreams, type BulkWriter, type LoadOptions } from './loadStreams';
import type { ProjectionChange, ReadModel } from './readmodel/readModel';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';

/**
 * A rebuild: every preset event projected again, from position zero, into a fresh read model
 * (`npm run rebuild` then puts it in place of the live one: rebuildTarget.ts says how, per backend).
 */

/** How a long pass over the events reports how far it got (the CLI draws a bar or prints lines). */
export interface Progress {
  /** `events` done so far: the first at `first`, the last at `position`. */
  update(events: number, first: bigint, position: bigint): void;
  stop(): void;
}
/** Starts a report of a pass that ends at the position `head`. */
export type ProgressReporter = (head: bigint) => Progress;
export const PAGE_SIZE = 5000;

export interface CatchUpResult {
  /** Position of the last event projected, or where it started when there was none. */
  position: bigint | undefined;
  events: number;
}

/**
 * Projects the preset events after `after` up to `until` (inclusive; null: none) into the read model,
 * a page at a time: one `projectBatch`, so one transaction and one checkpoint, per page.
 */
export const catchUp = async (
  feed: EventFeed,
  readModel: ReadModel,
  {
    after,
    until,
    onPage,
    pageSize = PAGE_SIZE,
  }: {
    after: bigint | undefined;
    until: bigint | null;
    pageSize?: number;
    onPage?: (events: number, first: bigint, position: bigint, batch: RecordedEvent[]) => void;
  },
): Promise<CatchUpResult> => {
  let position = after;
  let first: bigint | undefined;
  let events = 0;
  while (until !== null && (position === undefined || position < until)) {
    const page = await feed.readAll({ after: position, limit: pageSize, streamPrefix: WORKSPACE_STREAM_PREFIX });
    const last = page[page.length - 1];
    const batch = last && last.position > until ? page.filter((e) => e.position <= until) : page;
    if (batch.length === 0) break;
    await projectBatch(readModel, batch, PROJECTOR_NAME);
    first ??= batch[0]!.position;
    position = batch[batch.length - 1]!.position;
    events += batch.length;
    onPage?.(events, first, position, batch);
    if (batch.length < pageSize) break; // the end of the store, or of the range
  }
  return { position, events };
};

export interface RebuildOptions {
  log: (line: string) => void;
  progress?: ProgressReporter;
  /** Events per page, of the stream-by-stream load and of the catch-up after it. */
  pageSize?: number;
  /** How the target takes the load's changes; by default its `apply`. */
  writer?: BulkWriter;
  threads?: LoadOptions['threads'];
}

/**
 * Builds into the target: every stream up to the head taken at the start, stream by stream
 * (loadStreams.ts), then the checkpoint at that head, then, in position order, the events that
 * came meanwhile.
 */
export const rebuildInto = async (
  eventStore: EventFeed & StreamReader,
  target: ReadModel,
  options: RebuildOptions,
): Promise<CatchUpResult> => {
  const { log, progress: report, pageSize, threads } = options;
  const writer = options.writer ?? { encoding: 'changes', write: (changes) => target.apply(changes as ProjectionChange[]) };
  const head = await eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX });
  let events = 0;
  if (head !== null) {
    // Streams do not come in position order: progress counts events against the position range.
    const first = (await eventStore.readAll({ limit: 1, streamPrefix: WORKSPACE_STREAM_PREFIX }))[0]?.position ?? head;
    const progress = report?.(head);
    try {
      events = await loadStreams(eventStore, {
        until: head,
        writer,
        threads,
        pageSize,
        onEvents: (n) => {
          const done = (events += n);
          progress?.update(done, first, first + BigInt(done) - 1n > head ? head : first + BigInt(done) - 1n);
        },
      });
    } finally {
      progress?.stop();
    }
    await writer.finish?.();
    await target.apply([], { name: PROJECTOR_NAME, position: head });
  } else await writer.finish?.();
  const late = await catchUp(eventStore, target, {
    after: head ?? undefined,
    pageSize,
    until: await eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX }),
  });
  if (late.events > 0) log(`rebuild: ${late.events} events arrived during the rebuild and are in too`);
  return { position: late.position, events: events + late.events };
};
