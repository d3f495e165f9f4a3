import { availableParallelism } from 'node:os';
import type { EventStore, RecordedEvent } from '../src/eventstore/eventStore';
import { describeBackends, openEventStore, openReadModel } from '../src/backends';
import { PRESET_STREAM_PREFIX } from '../src/presets/streamName';
import { cliLogger, errorMessage, startCli, type CliIo } from './cliSupport';
import { createProgress } from './progress';
import { projectBatch } from './projectBatch';
import { PROJECTOR_NAME } from './projector';
import { canThread, loadStreams, type BulkWriter, type LoadOptions } from './loadStreams';
import type { ProjectionChange, ReadModel } from './readmodel/readModel';
import { openRebuildTarget, type RebuildTarget } from './rebuildTarget';

/**
 * `npm run rebuild`: projects every preset event again, from position zero, into a fresh read
 * model, then puts it in place of the live one (rebuildTarget.ts says how, per backend).
 */
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
  eventStore: EventStore, readModel: ReadModel,
  { after, until, onPage, pageSize = PAGE_SIZE }: {
    after: bigint | undefined; until: bigint | null; pageSize?: number;
    onPage?: (events: number, first: bigint, position: bigint, batch: RecordedEvent[]) => void;
  },
): Promise<CatchUpResult> => {
  let position = after;
  let first: bigint | undefined;
  let events = 0;
  while (until !== null && (position === undefined || position < until)) {
    const page = await eventStore.readAll({ after: position, limit: pageSize, streamPrefix: PRESET_STREAM_PREFIX });
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
  tty?: NodeJS.WriteStream;
  log: (line: string) => void;
  now?: () => number;
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
export const rebuildInto = async (eventStore: EventStore, target: ReadModel, options: RebuildOptions): Promise<CatchUpResult> => {
  const { tty, log, now = Date.now, pageSize, threads } = options;
  const writer = options.writer ?? { encoding: 'changes', write: (changes) => target.apply(changes as ProjectionChange[]) };
  const head = await eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX });
  let events = 0;
  if (head !== null) {
    // Streams do not come in position order: progress counts events against the position range.
    const first = (await eventStore.readAll({ limit: 1, streamPrefix: PRESET_STREAM_PREFIX }))[0]?.position ?? head;
    const progress = createProgress({ label: 'rebuild', head, tty, log, now });
    try {
      events = await loadStreams(eventStore, {
        until: head, writer, threads, pageSize,
        onEvents: (n) => {
          const done = (events += n);
          progress.update(done, first, first + BigInt(done) - 1n > head ? head : first + BigInt(done) - 1n);
        },
      });
    } finally {
      progress.stop();
    }
    await target.apply([], { name: PROJECTOR_NAME, position: head });
  }
  const late = await catchUp(eventStore, target, { after: head ?? undefined, pageSize, until: await eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX }) });
  if (late.events > 0) log(`rebuild: ${late.events} events arrived during the rebuild and are in too`);
  return { position: late.position, events: events + late.events };
};

const USAGE = `Usage: npm run rebuild
Rebuilds the read model from every event in the event store into a fresh read model, then switches
to it. Uses the service's environment (DATA_DIR, EVENTSTORE_URL, MONGODB_URL). With the embedded
SQLite read model, stop the service first. Exit 0: done; 1: failed (the live read model is unchanged
unless the message says otherwise); 2: bad usage or configuration, or no event store at DATA_DIR.`;

export const main = async (argv: string[], io: CliIo): Promise<number> => {
  const cli = startCli('rebuild', argv, io, USAGE, [], { readModel: false });
  if ('exit' in cli) return cli.exit;
  const { config } = cli;
  const backends = describeBackends(config);
  let eventStore: EventStore | undefined;
  let target: RebuildTarget | undefined;
  let switched = false;
  const started = Date.now();
  try {
    eventStore = openEventStore(config, cliLogger(config), { readOnly: true });
    target = await openRebuildTarget(config);
    const threads = canThread() ? availableParallelism() : 0;
    io.out(`rebuild: events from ${backends.eventStore}, read model ${backends.readModel}, building into ${target.description} ` +
      `(${threads > 0 ? `${threads} worker threads` : 'on one thread'})`);
    const built = await rebuildInto(eventStore, target.readModel, { tty: io.tty, log: io.out, writer: target.writer, threads: { count: threads, config } });
    if (built.events === 0) io.out('rebuild: the event store holds no preset events: the rebuilt read model is empty');
    const notes = await target.switchOver();
    switched = true;
    // A projector still running on the old read model (MongoDB) may have taken events during the
    // switch: project everything after the rebuilt checkpoint into the now-live read model too.
    const live = await openReadModel(config);
    try {
      await catchUp(eventStore, live, { after: built.position, until: await eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX }) });
    } finally {
      await live.close();
    }
    const seconds = (Date.now() - started) / 1000;
    io.out(`rebuild: done, ${built.events} events in ${seconds.toFixed(1)} s (${Math.round(built.events / Math.max(seconds, 0.001))} events/s), checkpoint ${built.position ?? 'none'}`);
    notes.forEach((note) => io.out(note));
    return 0;
  } catch (error) {
    if (switched) {
      io.err(`rebuild: switched to the rebuilt read model, but the catch-up after it failed: ${errorMessage(error)}. The projector projects the rest when it runs.`);
      return 1;
    }
    await target?.discard().catch((e: unknown) => io.err(`rebuild: could not remove the fresh read model: ${errorMessage(e)}`));
    io.err(`rebuild failed: ${errorMessage(error)}. The live read model is unchanged.`);
    return 1;
  } finally {
    await eventStore?.close().catch(() => {});
  }
};
