import { workspaceStreamPrefix } from '../events/workspaceStreams';
import type { WebhookStore } from '../webhooks/webhookStore';
import type { ConsumerGroups } from '../consumerGroups/consumerGroups';
import { groupStreamPrefix } from '../consumerGroups/group';
import { isReadable } from '../consumerGroups/store';
import type { Metrics } from './metrics';
import type { WatchedProcessor } from './processorGauges';

/**
 * Gauges read from the stores at scrape time (nothing runs between scrapes). Each is one or two
 * indexed lookups; the processors' positions and lags are set in one place (processorGauges.ts)
 * from what each processor kind says here of its instances.
 */

/**
 * The read model's projector (running in its own thread or process: its checkpoint is read from
 * the read model): in the processor family as `projector`, and under its older names with the
 * log's head.
 */
export const projectorWatch = (
  metrics: Metrics,
  { streamPrefix, checkpoint }: { streamPrefix: string; checkpoint: () => Promise<bigint | null> },
): WatchedProcessor => ({
  processor: 'projector',
  instances: async () => [{ position: await checkpoint(), streamPrefix }],
  alsoAs: ({ position, head, lagEvents, lagSeconds }) => {
    metrics.headPosition.set(head === null ? -1 : Number(head));
    metrics.projectorPosition.set(position === null ? -1 : Number(position));
    metrics.projectorLagEvents.set(lagEvents);
    metrics.projectorLagSeconds.set(lagSeconds);
  },
});

/** Open server-sent event streams. */
export const watchSse = (metrics: Metrics, sse: { readonly size: number }) =>
  metrics.onScrape(async () => {
    metrics.sseConnections.set(sse.size);
  });

/** The most events of one webhook the backlog gauge counts. */
export const BACKLOG_COUNT_CAP = 1000;

/** Webhooks disabled. */
export const watchWebhooks = (metrics: Metrics, { store }: { store: WebhookStore }) =>
  metrics.onScrape(async () => {
    metrics.webhooksDisabled.set((await store.countByStatus()).disabled);
  });

/**
 * Webhook delivery, one loop per active webhook: each one's backlog is the events of its workspace
 * (of the types it takes) after its checkpoint, counted up to BACKLOG_COUNT_CAP; summed, also as
 * the backlog gauge.
 */
export const webhooksWatch = (metrics: Metrics, { store }: { store: WebhookStore }): WatchedProcessor => ({
  processor: 'webhooks',
  cap: BACKLOG_COUNT_CAP,
  instances: async () =>
    (await store.listActive()).map(({ webhook, progress }) => ({
      position: progress.checkpoint,
      streamPrefix: workspaceStreamPrefix(webhook.workspaceId),
      types: webhook.events ?? undefined,
    })),
  alsoAs: ({ lagEvents }) => metrics.webhookBacklog.set(lagEvents),
});

/** Consumer groups of every workspace. */
export const watchConsumerGroups = (metrics: Metrics, { groups }: { groups: Pick<ConsumerGroups, 'listAll'> }) =>
  metrics.onScrape(async () => {
    metrics.consumerGroups.set((await groups.listAll()).length);
  });

/**
 * Consumer groups, each a checkpoint its clients move: their lag summed, and the largest, also
 * under the groups' own names (a group's name is no label).
 */
export const consumerGroupsWatch = (metrics: Metrics, { groups }: { groups: Pick<ConsumerGroups, 'listAll'> }): WatchedProcessor => ({
  processor: 'consumer-groups',
  // A group that cannot be read (store.ts) is counted, and has no lag: it never stops the others'.
  instances: async () =>
    (await groups.listAll()).filter(isReadable).map((group) => ({
      position: group.checkpoint,
      streamPrefix: groupStreamPrefix(group),
      types: group.filter.types ?? undefined,
    })),
  alsoAs: ({ lagEvents, maxLagEvents }) => {
    metrics.consumerGroupLag.set(lagEvents);
    metrics.consumerGroupMaxLag.set(maxLagEvents);
  },
});
