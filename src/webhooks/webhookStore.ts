import type { DeliveryProgress, StoredWebhook, Webhook, WebhookStatus } from './webhook';
import { WEBHOOK_STATUSES } from './webhook';

/**
 * Where webhooks, their secrets, their delivery progress and their recent attempts are kept:
 * SQLite (sqlite.ts, the embedded default), MongoDB (mongodb.ts, with MONGODB_URL) or memory
 * (memory.ts, for tests). One contract suite (test/contract) holds them all to the same behaviour.
 */

/** One attempt to deliver one event, as the deliveries endpoint shows it. */
export interface DeliveryAttempt {
  /** Assigned by the store; attempts of a webhook sort by it, newest last. */
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  eventPosition: bigint;
  /** 1 for the first attempt at this event, then 2, 3… */
  attempt: number;
  attemptedAt: string;
  outcome: 'succeeded' | 'failed';
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  /** When the next attempt at this event is due; null after a success or when the webhook was disabled. */
  nextRetryAt: string | null;
}
export type NewDeliveryAttempt = Omit<DeliveryAttempt, 'id'>;

/** Each webhook keeps at least its latest this many attempts; older ones are trimmed every TRIM_EVERY attempts. */
export const DELIVERY_LOG_SIZE = 1000;
export const TRIM_EVERY = 100;

export type ProgressUpdate = Omit<DeliveryProgress, 'epoch'>;

/** A `before` cursor that is not an attempt id of this store: a 400. */
export class InvalidCursor extends Error {
  override readonly name = 'InvalidCursor';
}

export interface WebhookStore {
  insert(stored: StoredWebhook): Promise<void>;
  get(workspaceId: string, id: string): Promise<StoredWebhook | null>;
  /** The workspace's webhooks, oldest first. */
  list(workspaceId: string): Promise<StoredWebhook[]>;
  /** Every active webhook of every workspace, with its progress: what the deliverer runs. */
  listActive(): Promise<StoredWebhook[]>;
  /** How many webhooks of every workspace are in each status (the operators' metrics). */
  countByStatus(): Promise<Record<WebhookStatus, number>>;
  /**
   * Replaces the configuration if it is still at `expectedRevision` (false otherwise, or when it
   * is gone). `resetFailures` also clears the failure record.
   */
  update(webhook: Webhook, expectedRevision: number, options?: { resetFailures?: boolean }): Promise<boolean>;
  /** A replay from `after`: the progress `rewound` (webhook.ts) makes of the current one; null when there is no such webhook. */
  rewind(workspaceId: string, id: string, after: bigint): Promise<DeliveryProgress | null>;
  /**
   * Records the attempts given (in their order, each after those of earlier saves) and saves the
   * progress if the webhook is still at `epoch`; says whether the progress was saved. Nothing is
   * recorded for a webhook that is gone. A delivery loop hands over every attempt it made since its
   * last save, so one save may carry many.
   */
  saveProgress(webhookId: string, epoch: number, progress: ProgressUpdate, attempts?: readonly NewDeliveryAttempt[]): Promise<boolean>;
  /** Attempts newest first, those older than the attempt `before` when given. */
  deliveries(webhookId: string, page: { limit: number; before?: string }): Promise<DeliveryAttempt[]>;
  /** Removes the webhook and its attempts; false when there was none. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Counts by status, every status present (0 when none), from rows of (status, count). */
export const statusCounts = (rows: Iterable<{ status: string; count: number }>): Record<WebhookStatus, number> => {
  const counts = Object.fromEntries(WEBHOOK_STATUSES.map((s) => [s, 0])) as Record<WebhookStatus, number>;
  for (const { status, count } of rows) if (status in counts) counts[status as WebhookStatus] += count;
  return counts;
};
