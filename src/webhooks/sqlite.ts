import { guardedByStoreFault as guard, openDatabase } from '../sqlite/connection';
import { rewound, type DeliveryProgress, type StoredWebhook, type Webhook } from './webhook';
import {
  statusCounts,
  DELIVERY_LOG_SIZE,
  InvalidCursor,
  TRIM_EVERY,
  type DeliveryAttempt,
  type NewDeliveryAttempt,
  type WebhookStore,
} from './webhookStore';

/**
 * The embedded webhook store: its own SQLite file beside the event store's. Registrations and
 * secrets are committed with `synchronous=FULL` (on disk when the API answers); delivery progress
 * and attempts on a second connection with `synchronous=NORMAL`: in WAL mode a commit survives the
 * process being killed, and one lost to a power cut only means an event is delivered again, never
 * skipped, while an fsync per delivery on the API's thread would stall every request behind it.
 * Write transactions take the write lock first (`.immediate`): a transaction that read first and
 * then wrote would fail at once, not wait, when the WAL checkpointer restarts the WAL between the two.
 * Progress saved by several delivery loops in the same turn of the event loop is committed in one
 * transaction (a group commit): each call still resolves only once its own attempts and checkpoint
 * are committed, and fails if that commit failed.
 */
export const WEBHOOKS_FILE = 'webhooks.db';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  workspace_id     TEXT NOT NULL,
  status           TEXT NOT NULL,
  revision         INTEGER NOT NULL,
  config           TEXT NOT NULL,
  checkpoint       TEXT,
  epoch            INTEGER NOT NULL,
  failing_since    TEXT,
  failing_event_id TEXT,
  failing_attempts INTEGER NOT NULL,
  next_attempt_at  TEXT
);
CREATE INDEX IF NOT EXISTS webhooks_by_workspace ON webhooks (workspace_id, seq);
CREATE INDEX IF NOT EXISTS webhooks_by_status ON webhooks (status);
CREATE TABLE IF NOT EXISTS deliveries (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id TEXT NOT NULL,
  attempt    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_by_webhook ON deliveries (webhook_id, id);`;

interface Row {
  id: string;
  workspace_id: string;
  status: string;
  revision: number;
  config: string;
  checkpoint: string | null;
  epoch: number;
  failing_since: string | null;
  failing_event_id: string | null;
  failing_attempts: number;
  next_attempt_at: string | null;
}

/** The configuration column: the webhook without what has columns of its own. */
type Config = Omit<Webhook, 'id' | 'workspaceId' | 'status' | 'revision'>;
const configJson = ({ id: _id, workspaceId: _ws, status: _s, revision: _r, ...config }: Webhook): string =>
  JSON.stringify(config satisfies Config);

const progressOf = (row: Row): DeliveryProgress => ({
  checkpoint: row.checkpoint === null ? null : BigInt(row.checkpoint),
  epoch: row.epoch,
  failingSince: row.failing_since,
  failingEventId: row.failing_event_id,
  failingAttempts: row.failing_attempts,
  nextAttemptAt: row.next_attempt_at,
});
const webhookOf = (row: Row): Webhook => ({
  ...(JSON.parse(row.config) as Config),
  id: row.id,
  workspaceId: row.workspace_id,
  status: row.status as Webhook['status'],
  revision: row.revision,
});
const storedOf = (row: Row): StoredWebhook => ({ webhook: webhookOf(row), progress: progressOf(row) });

type StoredAttempt = Omit<DeliveryAttempt, 'id' | 'webhookId' | 'eventPosition'> & { eventPosition: string };

/** `cacheKib`: the page cache of each of its two connections, where not the default (src/sqlite/connection.ts). */
export const openSqliteWebhookStore = (options: { file: string; cacheKib?: number }): WebhookStore => {
  const registrations = openDatabase(options.file, 'full', options.cacheKib);
  registrations.exec(SCHEMA);
  const deliveryLog = openDatabase(options.file, 'normal', options.cacheKib);
  const q = {
    insert:
      registrations.prepare(`INSERT INTO webhooks (id, workspace_id, status, revision, config, checkpoint, epoch, failing_since, failing_event_id, failing_attempts, next_attempt_at)
      VALUES (@id, @workspace_id, @status, @revision, @config, @checkpoint, @epoch, @failing_since, @failing_event_id, @failing_attempts, @next_attempt_at)`),
    get: registrations.prepare('SELECT * FROM webhooks WHERE id = ? AND workspace_id = ?'),
    list: registrations.prepare('SELECT * FROM webhooks WHERE workspace_id = ? ORDER BY seq'),
    listActive: registrations.prepare(`SELECT * FROM webhooks WHERE status = 'active' ORDER BY seq`),
    countByStatus: registrations.prepare('SELECT status, COUNT(*) AS count FROM webhooks GROUP BY status'),
    update: registrations.prepare(
      'UPDATE webhooks SET status = ?, revision = ?, config = ? WHERE id = ? AND workspace_id = ? AND revision = ?',
    ),
    resetFailures: registrations.prepare(
      'UPDATE webhooks SET failing_since = NULL, failing_event_id = NULL, failing_attempts = 0, next_attempt_at = NULL WHERE id = ?',
    ),
    rewind:
      registrations.prepare(`UPDATE webhooks SET checkpoint = @checkpoint, epoch = @epoch, failing_since = @failing_since, failing_event_id = @failing_event_id,
      failing_attempts = @failing_attempts, next_attempt_at = @next_attempt_at WHERE id = @id`),
    delete: registrations.prepare('DELETE FROM webhooks WHERE id = ? AND workspace_id = ?'),
    deleteAttempts: registrations.prepare('DELETE FROM deliveries WHERE webhook_id = ?'),
    saveProgress:
      deliveryLog.prepare(`UPDATE webhooks SET checkpoint = @checkpoint, failing_since = @failing_since, failing_event_id = @failing_event_id,
      failing_attempts = @failing_attempts, next_attempt_at = @next_attempt_at WHERE id = @id AND epoch = @epoch`),
    exists: deliveryLog.prepare('SELECT 1 FROM webhooks WHERE id = ?').pluck(),
    insertAttempt: deliveryLog.prepare('INSERT INTO deliveries (webhook_id, attempt) VALUES (?, ?)'),
    trim: deliveryLog.prepare(`DELETE FROM deliveries WHERE webhook_id = @webhook AND id < (
      SELECT id FROM deliveries WHERE webhook_id = @webhook ORDER BY id DESC LIMIT 1 OFFSET ${DELIVERY_LOG_SIZE - 1})`),
    latest: deliveryLog.prepare('SELECT id, attempt FROM deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?'),
    before: deliveryLog.prepare('SELECT id, attempt FROM deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
  };
  const progressParams = (id: string, epoch: number, p: Omit<DeliveryProgress, 'epoch'>) => ({
    id,
    epoch,
    checkpoint: p.checkpoint === null ? null : p.checkpoint.toString(),
    failing_since: p.failingSince,
    failing_event_id: p.failingEventId,
    failing_attempts: p.failingAttempts,
    next_attempt_at: p.nextAttemptAt,
  });
  // Attempts since the last trim, per webhook: trimming costs an index walk, so it is not done on every insert.
  const sinceTrim = new Map<string, number>();

  const update = registrations.transaction((webhook: Webhook, expectedRevision: number, resetFailures: boolean): boolean => {
    const changed =
      q.update.run(webhook.status, webhook.revision, configJson(webhook), webhook.id, webhook.workspaceId, expectedRevision).changes === 1;
    if (changed && resetFailures) q.resetFailures.run(webhook.id);
    return changed;
  });
  const rewind = registrations.transaction((workspaceId: string, id: string, after: bigint): DeliveryProgress | null => {
    const row = q.get.get(id, workspaceId) as Row | undefined;
    if (!row) return null;
    const next = rewound(progressOf(row), after);
    q.rewind.run(progressParams(id, next.epoch, next));
    return next;
  });
  const saveOne = (
    webhookId: string,
    epoch: number,
    progress: Omit<DeliveryProgress, 'epoch'>,
    attempts: readonly NewDeliveryAttempt[] = [],
  ): boolean => {
    if (attempts.length > 0 && q.exists.get(webhookId) !== undefined) {
      for (const { webhookId: _w, eventPosition, ...rest } of attempts)
        q.insertAttempt.run(webhookId, JSON.stringify({ ...rest, eventPosition: eventPosition.toString() } satisfies StoredAttempt));
      const n = (sinceTrim.get(webhookId) ?? 0) + attempts.length;
      sinceTrim.set(webhookId, n % TRIM_EVERY);
      if (n >= TRIM_EVERY) q.trim.run({ webhook: webhookId });
    }
    return q.saveProgress.run(progressParams(webhookId, epoch, progress)).changes === 1;
  };
  type Save = Parameters<typeof saveOne>;
  const saveAll = deliveryLog.transaction((saves: Save[]): boolean[] => saves.map((save) => saveOne(...save)));
  /** Saves asked for in this turn, committed together at the next (setImmediate). */
  let group: { saves: Save[]; committed: Promise<boolean[]> } | undefined;
  const saveProgress = async (...save: Save): Promise<boolean> => {
    if (!group) {
      const saves: Save[] = [];
      group = {
        saves,
        committed: new Promise<boolean[]>((resolve, reject) =>
          setImmediate(() => {
            group = undefined;
            try {
              resolve(saveAll.immediate(saves));
            } catch (error) {
              reject(error as Error);
            }
          }),
        ),
      };
    }
    const index = group.saves.push(save) - 1;
    return (await group.committed)[index]!;
  };
  const remove = registrations.transaction((workspaceId: string, id: string): boolean => {
    if (q.delete.run(id, workspaceId).changes === 0) return false;
    q.deleteAttempts.run(id);
    sinceTrim.delete(id);
    return true;
  });

  return {
    insert: guard(async ({ webhook, progress }) => {
      q.insert.run({
        ...progressParams(webhook.id, progress.epoch, progress),
        workspace_id: webhook.workspaceId,
        status: webhook.status,
        revision: webhook.revision,
        config: configJson(webhook),
      });
    }),
    get: guard(async (workspaceId, id) => {
      const row = q.get.get(id, workspaceId) as Row | undefined;
      return row ? storedOf(row) : null;
    }),
    list: guard(async (workspaceId) => (q.list.all(workspaceId) as Row[]).map(storedOf)),
    listActive: guard(async () => (q.listActive.all() as Row[]).map(storedOf)),
    countByStatus: guard(async () => statusCounts(q.countByStatus.all() as { status: string; count: number }[])),
    update: guard(async (webhook, expectedRevision, { resetFailures = false } = {}) =>
      update.immediate(webhook, expectedRevision, resetFailures),
    ),
    rewind: guard(async (workspaceId, id, after) => rewind.immediate(workspaceId, id, after)),
    saveProgress: guard(saveProgress),
    deliveries: guard(async (webhookId, { limit, before }) => {
      if (before !== undefined && !/^[1-9]\d{0,15}$/.test(before)) throw new InvalidCursor(`not an attempt id: ${before}`);
      const rows = (before === undefined ? q.latest.all(webhookId, limit) : q.before.all(webhookId, Number(before), limit)) as Array<{
        id: number;
        attempt: string;
      }>;
      return rows.map(({ id, attempt }) => {
        const stored = JSON.parse(attempt) as StoredAttempt;
        return { ...stored, id: String(id), webhookId, eventPosition: BigInt(stored.eventPosition) };
      });
    }),
    delete: guard(async (workspaceId, id) => remove.immediate(workspaceId, id)),
    async close() {
      deliveryLog.close();
      registrations.close();
    },
  };
};
