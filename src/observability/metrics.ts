import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics: one registry per service (tests run several in one process),
 * with Node's default metrics. Every label has a bounded set of values: a route template (never
 * the path), a method, a status class, an event type, a format, an outcome. A slug, a key, a
 * user or a workspace never becomes a label value; per-preset figures belong to the usage
 * endpoint. docs/operations.md says what each one means and which alerts to set on them.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Runs before every scrape: gauges read from the stores (positions, backlog) are set here. */
  onScrape(refresh: () => Promise<void>): void;
  /** Refreshes, then renders every metric in the text format. */
  scrape(): Promise<string>;
  readonly httpRequests: Counter<'route' | 'method' | 'status_class'>;
  readonly httpDuration: Histogram<'route' | 'method' | 'status_class'>;
  readonly eventsAppended: Counter<'type'>;
  readonly appendDuration: Histogram<'type'>;
  readonly concurrencyConflicts: Counter<'kind'>;
  readonly storeFaults: Counter;
  readonly projectorPosition: Gauge;
  readonly headPosition: Gauge;
  readonly projectorLagEvents: Gauge;
  readonly projectorLagSeconds: Gauge;
  readonly readYourWritesWaits: Counter;
  readonly readYourWritesTimeouts: Counter;
  readonly sseConnections: Gauge;
  readonly resolutions: Counter<'format' | 'outcome'>;
  readonly rateLimited: Counter;
  readonly webhookBacklog: Gauge;
  readonly webhooksDisabled: Gauge;
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookDeliveryLag: Histogram;
  readonly consumerGroups: Gauge;
  readonly consumerGroupLag: Gauge;
  readonly consumerGroupMaxLag: Gauge;
  /** Every processor of the log (src/feed/processor.ts), by its kind: src/observability/processorGauges.ts sets them. */
  readonly processorPosition: Gauge<'processor'>;
  readonly processorLagEvents: Gauge<'processor'>;
  readonly processorLagSeconds: Gauge<'processor'>;
}

/** Seconds, from 1 ms to 10 s: an API request's or an append's latency. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds from an event's append to its delivery: from 10 ms to 10 minutes (retries). */
const DELIVERY_LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

/** The most events the projector-lag gauge counts (beyond it the age in seconds says more). */
export const LAG_COUNT_CAP = 10_000;

export const createMetrics = (): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const refreshers: (() => Promise<void>)[] = [];
  return {
    registry,
    onScrape: (refresh) => void refreshers.push(refresh),
    async scrape() {
      // A store that cannot answer leaves its gauges at their last value; the scrape still answers.
      await Promise.allSettled(refreshers.map((refresh) => refresh()));
      return registry.metrics();
    },
    httpRequests: new Counter({
      name: 'presets_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status class',
      labelNames: ['route', 'method', 'status_class'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'presets_http_request_duration_seconds',
      help: 'Time from a request to its answer (an event stream: to its end), by route template, method and status class',
      labelNames: ['route', 'method', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    eventsAppended: new Counter({
      name: 'presets_events_appended_total',
      help: 'Events stored by this process, by event type',
      labelNames: ['type'],
      registers,
    }),
    appendDuration: new Histogram({
      name: 'presets_append_duration_seconds',
      help: 'Time an append takes until it is durable, by the type of its (first) event',
      labelNames: ['type'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    concurrencyConflicts: new Counter({
      name: 'presets_concurrency_conflicts_total',
      help: 'Writes refused by optimistic concurrency: lost_race (409: another write came first) or if_match (412: a stale If-Match)',
      labelNames: ['kind'],
      registers,
    }),
    storeFaults: new Counter({
      name: 'presets_store_faults_total',
      help: 'Requests answered 503 because a store could not take or give data (disk full, read-only, unreachable)',
      registers,
    }),
    projectorPosition: new Gauge({
      name: 'presets_projector_position',
      help: "Log position of the last event the read model's projector has applied (-1: none yet)",
      registers,
    }),
    headPosition: new Gauge({
      name: 'presets_log_head_position',
      help: 'Log position of the last preset event stored (-1: none yet)',
      registers,
    }),
    projectorLagEvents: new Gauge({
      name: 'presets_projector_lag_events',
      help: `Preset events stored but not yet in the read model (counted up to ${LAG_COUNT_CAP})`,
      registers,
    }),
    projectorLagSeconds: new Gauge({
      name: 'presets_projector_lag_seconds',
      help: 'Age of the oldest preset event not yet in the read model (0 when caught up)',
      registers,
    }),
    readYourWritesWaits: new Counter({
      name: 'presets_read_your_writes_waits_total',
      help: 'Writes whose answer waited for the read model to show them',
      registers,
    }),
    readYourWritesTimeouts: new Counter({
      name: 'presets_read_your_writes_timeouts_total',
      help: 'Writes answered 202 because the read model did not show them in time',
      registers,
    }),
    sseConnections: new Gauge({
      name: 'presets_sse_connections_open',
      help: 'Server-sent event streams open now',
      registers,
    }),
    resolutions: new Counter({
      name: 'presets_resolutions_total',
      help: 'Requests resolved against a preset, by request format and outcome (resolved, or the status class of the refusal)',
      labelNames: ['format', 'outcome'],
      registers,
    }),
    rateLimited: new Counter({
      name: 'presets_rate_limited_total',
      help: 'Requests refused with 429 because their key was over RATE_LIMIT_PER_MINUTE',
      registers,
    }),
    webhookBacklog: new Gauge({
      name: 'presets_webhook_backlog_events',
      help: "Events of their workspaces that enabled webhooks have not yet delivered (summed; each webhook's count up to a cap)",
      registers,
    }),
    webhooksDisabled: new Gauge({
      name: 'presets_webhooks_disabled',
      help: 'Webhooks disabled (by their owner or after failing for WEBHOOK_DISABLE_AFTER_MS)',
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'presets_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, failed: a non-2xx answer, error: no answer)',
      labelNames: ['outcome'],
      registers,
    }),
    webhookDeliveryLag: new Histogram({
      name: 'presets_webhook_delivery_lag_seconds',
      help: 'Time from an event being stored to its delivery to a webhook (2xx)',
      buckets: DELIVERY_LAG_BUCKETS,
      registers,
    }),
    consumerGroups: new Gauge({ name: 'presets_consumer_groups', help: 'Consumer groups defined, in every workspace', registers }),
    consumerGroupLag: new Gauge({
      name: 'presets_consumer_group_lag_events',
      help: `Events not yet acknowledged by consumer groups, summed over groups (each counted up to ${LAG_COUNT_CAP})`,
      registers,
    }),
    consumerGroupMaxLag: new Gauge({
      name: 'presets_consumer_group_max_lag_events',
      help: `The largest lag of one consumer group, in events (counted up to ${LAG_COUNT_CAP})`,
      registers,
    }),
    processorPosition: new Gauge({
      name: 'presets_processor_position',
      help: 'Log position every instance of the processor has handled or passed (the lowest of them; -1: none yet)',
      labelNames: ['processor'],
      registers,
    }),
    processorLagEvents: new Gauge({
      name: 'presets_processor_lag_events',
      help: `Events of its streams and types the processor has yet to handle, summed over its instances (each counted up to ${LAG_COUNT_CAP})`,
      labelNames: ['processor'],
      registers,
    }),
    processorLagSeconds: new Gauge({
      name: 'presets_processor_lag_seconds',
      help: 'Age of the oldest event the processor has yet to handle, over its instances (0 when caught up)',
      labelNames: ['processor'],
      registers,
    }),
  };
};

/** `2xx`, `4xx`, ...: the status as a bounded label value. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;
