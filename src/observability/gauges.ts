import type { EventFeed } from '../eventstore/eventFeed';
import type { WebhookStore } from '../webhooks/webhookStore';
import type { ConsumerGroups } from '../consumerGroups/consumerGroups';
import { isReadable } from '../consumerGroups/store';
import { LAG_COUNT_CAP, type Metrics } from './metrics';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * Gauges read from the stores at scrape time (nothing runs between scrapes). Each is one or two
 * indexed lookups; lags and backlogs are counted by the event store (`countAll`, up to their caps:
 * SQLite counts through its indexes, EventStoreDB reads the events and counts them).
 */

/** The read model's projector: its position, the log's head, and how far behind it is in events and in seconds. */
export const watchProjector = (
  metrics: Metrics,
  {
    feed,
    streamPrefix,
    checkpoint,
    now = Date.now,
  }: { feed: EventFeed; streamPrefix: string; checkpoint: () => Promise<bigint | null>; now?: () => number },
) =>
  metrics.onScrape(async () => {
    const [head, position] = await Promise.all([feed.headPosition({ streamPrefix }), checkpoint()]);
    metrics.headPosition.set(head === null ? -1 : Number(head));
    metrics.projectorPosition.set(position === null ? -1 : Number(position));
    if (head === null || (position !== null && position >= head)) {
      metrics.projectorLagEvents.set(0);
      metrics.projectorLagSeconds.set(0);
      return;
    }
    const after = position ?? undefined;
    const [behind, [oldest]] = await Promise.all([
      feed.countAll({ after, limit: LAG_COUNT_CAP, streamPrefix }),
      feed.readAll({ after, limit: 1, streamPrefix }),
    ]);
    metrics.projectorLagEvents.set(behind);
    metrics.projectorLagSeconds.set(oldest ? Math.max(0, (now() - oldest.recordedAt.getTime()) / 1000) : 0);
  });

/** Open server-sent event streams. */
export const watchSse = (metrics: Metrics, sse: { readonly size: number }) =>
  metrics.onScrape(async () => {
    metrics.sseConnections.set(sse.size);
  });

/** The most events of one webhook the backlog gauge counts. */
export const BACKLOG_COUNT_CAP = 1000;

/**
 * Webhooks disabled, and the backlog of the active ones: the events of their workspace (of the
 * types they take) after their checkpoint, each webhook's counted up to BACKLOG_COUNT_CAP.
 */
export const watchWebhooks = (metrics: Metrics, { store, feed }: { store: WebhookStore; feed: EventFeed }) =>
  metrics.onScrape(async () => {
    const [counts, active] = await Promise.all([store.countByStatus(), store.listActive()]);
    metrics.webhooksDisabled.set(counts.disabled);
    const backlogs = await Promise.all(
      active.map(({ webhook, progress }) =>
        feed.countAll({
          after: progress.checkpoint ?? undefined,
          limit: BACKLOG_COUNT_CAP,
          streamPrefix: workspaceStreamPrefix(webhook.workspaceId),
          types: webhook.events ?? undefined,
        }),
      ),
    );
    metrics.webhookBacklog.set(backlogs.reduce((sum, n) => sum + n, 0));
  });

/** Consumer groups of every workspace and their lag: summed, and the largest (a group's name is no label). */
export const watchConsumerGroups = (metrics: Metrics, { groups }: { groups: Pick<ConsumerGroups, 'lag' | 'listAll'> }) =>
  metrics.onScrape(async () => {
    const all = await groups.listAll();
    // A group that cannot be read (store.ts) is counted, and has no lag: it never stops the others'.
    const lags = await Promise.all(all.filter(isReadable).map(async (group) => (await groups.lag(group, LAG_COUNT_CAP)).events));
    metrics.consumerGroups.set(all.length);
    metrics.consumerGroupLag.set(lags.reduce((sum, n) => sum + n, 0));
    metrics.consumerGroupMaxLag.set(Math.max(0, ...lags));
  });
