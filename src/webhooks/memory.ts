import { NO_FAILURE, rewound, type StoredWebhook } from './webhook';
import { DELIVERY_LOG_SIZE, InvalidCursor, statusCounts, type DeliveryAttempt, type WebhookStore } from './webhookStore';

/**
 * Webhooks in memory, held to the same contract as the stored ones (test/contract): for tests
 * of the deliverer and the routes without a file or a server. Values are copied in and out, as a
 * stored one would be, so a caller can never change what it holds.
 */
export const openMemoryWebhookStore = (): WebhookStore => {
  const webhooks = new Map<string, StoredWebhook>();
  const attempts = new Map<string, DeliveryAttempt[]>();
  let nextAttemptId = 1;
  const copy = (s: StoredWebhook): StoredWebhook => structuredClone(s);

  return {
    async insert(stored) {
      if (webhooks.has(stored.webhook.id)) throw new Error(`webhook ${stored.webhook.id} exists`);
      webhooks.set(stored.webhook.id, copy(stored));
    },
    async get(workspaceId, id) {
      const s = webhooks.get(id);
      return s && s.webhook.workspaceId === workspaceId ? copy(s) : null;
    },
    async list(workspaceId) {
      return [...webhooks.values()].filter((s) => s.webhook.workspaceId === workspaceId).map(copy);
    },
    async countByStatus() {
      return statusCounts([...webhooks.values()].map((s) => ({ status: s.webhook.status, count: 1 })));
    },
    async listActive() {
      return [...webhooks.values()].filter((s) => s.webhook.status === 'active').map(copy);
    },
    async update(webhook, expectedRevision, { resetFailures = false } = {}) {
      const s = webhooks.get(webhook.id);
      if (!s || s.webhook.workspaceId !== webhook.workspaceId || s.webhook.revision !== expectedRevision) return false;
      webhooks.set(webhook.id, {
        webhook: structuredClone(webhook),
        progress: resetFailures ? { ...s.progress, ...NO_FAILURE } : s.progress,
      });
      return true;
    },
    async rewind(workspaceId, id, after) {
      const s = webhooks.get(id);
      if (!s || s.webhook.workspaceId !== workspaceId) return null;
      s.progress = rewound(s.progress, after);
      return { ...s.progress };
    },
    async saveProgress(webhookId, epoch, progress, made = []) {
      const s = webhooks.get(webhookId);
      if (!s) return false;
      if (made.length > 0) {
        const log = attempts.get(webhookId) ?? [];
        for (const attempt of made) log.push({ ...attempt, id: String(nextAttemptId++) });
        if (log.length > DELIVERY_LOG_SIZE) log.splice(0, log.length - DELIVERY_LOG_SIZE);
        attempts.set(webhookId, log);
      }
      if (s.progress.epoch !== epoch) return false;
      s.progress = { ...progress, epoch };
      return true;
    },
    async deliveries(webhookId, { limit, before }) {
      if (before !== undefined && !/^\d{1,15}$/.test(before)) throw new InvalidCursor(`not an attempt id: ${before}`);
      const log = attempts.get(webhookId) ?? [];
      return log
        .filter((a) => before === undefined || Number(a.id) < Number(before))
        .slice(-limit)
        .reverse()
        .map((a) => ({ ...a }));
    },
    async delete(workspaceId, id) {
      const s = webhooks.get(id);
      if (!s || s.webhook.workspaceId !== workspaceId) return false;
      webhooks.delete(id);
      attempts.delete(id);
      return true;
    },
    async close() {},
  };
};
