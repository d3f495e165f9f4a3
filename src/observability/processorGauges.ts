import type { EventFeed } from '../eventstore/eventFeed';
import type { Processor } from '../feed/processor';
import { LAG_COUNT_CAP, type Metrics } from './metrics';

/**
 * Position and lag of every processor of the log (src/feed/processor.ts), in one place and one
 * metric family labelled by the processor's kind (`projector`, `webhooks`, `consumer-groups`,
 * `keys`, `audit`, ...: a bounded set; a webhook, a group or a workspace is never a label).
 * Read at scrape time: each instance's checkpoint from where it is kept, and its lag counted by
 * the event store (`countAll`, up to LAG_COUNT_CAP) over its streams and types. A kind with many
 * instances (one delivery loop per webhook, one checkpoint per consumer group) reports the lowest
 * position, the summed lag and the oldest pending event.
 */
export interface ProcessorInstance {
  /** Every event up to here is handled (null: none yet). */
  position: bigint | null;
  streamPrefix?: string;
  types?: readonly string[];
}

export interface ProcessorFigures {
  /** The lowest position of its instances (null: one has none, or there are no instances). */
  position: bigint | null;
  /** The highest head of its instances' streams (null: no event). */
  head: bigint | null;
  lagEvents: number;
  maxLagEvents: number;
  lagSeconds: number;
  instances: number;
}

export interface WatchedProcessor {
  /** The label value: the processor's kind. */
  processor: string;
  instances(): Promise<readonly ProcessorInstance[]>;
  /** The most events of one instance its lag counts (LAG_COUNT_CAP by default). */
  cap?: number;
  /** The same figures under older names, which dashboards and alerts already use (docs/operations.md). */
  alsoAs?: (figures: ProcessorFigures) => void;
}

export const processorFigures = async (
  feed: Pick<EventFeed, 'headPosition' | 'countAll' | 'readAll'>,
  instances: readonly ProcessorInstance[],
  { cap = LAG_COUNT_CAP, now = Date.now }: { cap?: number; now?: () => number } = {},
): Promise<ProcessorFigures> => {
  const heads = new Map<string, Promise<bigint | null>>();
  const headOf = (prefix: string) => {
    let head = heads.get(prefix);
    if (!head) heads.set(prefix, (head = feed.headPosition(prefix ? { streamPrefix: prefix } : {})));
    return head;
  };
  const each = await Promise.all(
    instances.map(async ({ position, streamPrefix = '', types }) => {
      const head = await headOf(streamPrefix);
      if (head === null || (position !== null && position >= head)) return { head, lag: 0, age: 0 };
      const filter = { after: position ?? undefined, streamPrefix: streamPrefix || undefined, types };
      const [lag, [oldest]] = await Promise.all([feed.countAll({ ...filter, limit: cap }), feed.readAll({ ...filter, limit: 1 })]);
      return { head, lag, age: oldest ? Math.max(0, (now() - oldest.recordedAt.getTime()) / 1000) : 0 };
    }),
  );
  const positions = instances.map((i) => i.position);
  return {
    position: positions.length === 0 || positions.includes(null) ? null : positions.reduce((a, b) => (b! < a! ? b : a), positions[0]!),
    head: each.reduce<bigint | null>((a, { head }) => (head !== null && (a === null || head > a) ? head : a), null),
    lagEvents: each.reduce((sum, { lag }) => sum + lag, 0),
    maxLagEvents: Math.max(0, ...each.map(({ lag }) => lag)),
    lagSeconds: Math.max(0, ...each.map(({ age }) => age)),
    instances: instances.length,
  };
};

/** Sets the processor family for each watched processor before every scrape. */
export const watchProcessors = (
  metrics: Metrics,
  feed: Pick<EventFeed, 'headPosition' | 'countAll' | 'readAll'>,
  processors: readonly WatchedProcessor[],
  now: () => number = Date.now,
) =>
  metrics.onScrape(async () => {
    // One processor whose store cannot answer leaves its gauges as they were; the others are set.
    await Promise.allSettled(
      processors.map(async ({ processor, instances, cap, alsoAs }) => {
        const figures = await processorFigures(feed, await instances(), { cap, now });
        metrics.processorPosition.set({ processor }, figures.position === null ? -1 : Number(figures.position));
        metrics.processorLagEvents.set({ processor }, figures.lagEvents);
        metrics.processorLagSeconds.set({ processor }, figures.lagSeconds);
        alsoAs?.(figures);
      }),
    );
  });

/** A processor of this process (src/feed/processor.ts), by its kind (its name by default). */
export const processorWatch = (
  processor: Pick<Processor, 'name' | 'position' | 'streamPrefix' | 'eventTypes'>,
  label = processor.name,
): WatchedProcessor => ({
  processor: label,
  instances: async () => [{ position: processor.position(), streamPrefix: processor.streamPrefix, types: processor.eventTypes }],
});
