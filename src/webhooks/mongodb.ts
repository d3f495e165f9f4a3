import { MongoClient, ObjectId, type Collection } from 'mongodb';
import { guardedByMongoUnavailable as guard, connectMongo } from '../mongodb/unavailable';
import { rewound, type DeliveryProgress, type StoredWebhook, type Webhook } from './webhook';
import { DELIVERY_LOG_SIZE, InvalidCursor, statusCounts, TRIM_EVERY, type DeliveryAttempt, type WebhookStore } from './webhookStore';

/**
 * Webhooks on MongoDB (used when MONGODB_URL is set), in two collections of their own: one
 * document per webhook (configuration and delivery progress, each written by its own fields so
 * the API and the deliverer never overwrite one another), and its attempts. No transactions, so no
 * replica set is needed: an attempt recorded without the progress beside it only shows an
 * attempt whose event is delivered again.
 */
export const WEBHOOK_COLLECTIONS = { webhooks: 'webhooks', deliveries: 'webhook_deliveries' } as const;

interface WebhookDocument {
  _id: string;
  workspace_id: string;
  status: string;
  revision: number;
  created_seq: number;
  config: Omit<Webhook, 'id' | 'workspaceId' | 'status' | 'revision'>;
  /** A decimal string: positions exceed int64. */
  checkpoint: string | null;
  epoch: number;
  failing_since: string | null;
  failing_event_id: string | null;
  failing_attempts: number;
  next_attempt_at: string | null;
}
interface AttemptDocument extends Omit<DeliveryAttempt, 'id' | 'webhookId' | 'eventPosition'> {
  _id: ObjectId;
  webhook_id: string;
  eventPosition: string;
}

const progressFields = (p: Omit<DeliveryProgress, 'epoch'>) => ({
  checkpoint: p.checkpoint === null ? null : p.checkpoint.toString(),
  failing_since: p.failingSince,
  failing_event_id: p.failingEventId,
  failing_attempts: p.failingAttempts,
  next_attempt_at: p.nextAttemptAt,
});
/** The failure record of a webhook set active again: cleared, its checkpoint kept. */
const CLEAN_RECORD = { failing_since: null, failing_event_id: null, failing_attempts: 0, next_attempt_at: null };
const configOf = ({ id: _id, workspaceId: _ws, status: _s, revision: _r, ...config }: Webhook): WebhookDocument['config'] => config;

const storedOf = (d: WebhookDocument): StoredWebhook => ({
  webhook: { ...d.config, id: d._id, workspaceId: d.workspace_id, status: d.status as Webhook['status'], revision: d.revision },
  progress: {
    checkpoint: d.checkpoint === null ? null : BigInt(d.checkpoint),
    epoch: d.epoch,
    failingSince: d.failing_since,
    failingEventId: d.failing_event_id,
    failingAttempts: d.failing_attempts,
    nextAttemptAt: d.next_attempt_at,
  },
});

export const openMongoWebhookStore = async (options: { url: string; database?: string }): Promise<WebhookStore> => {
  const client = new MongoClient(options.url);
  const db = client.db(options.database);
  const webhooks: Collection<WebhookDocument> = db.collection(WEBHOOK_COLLECTIONS.webhooks);
  const attempts: Collection<AttemptDocument> = db.collection(WEBHOOK_COLLECTIONS.deliveries);
  await connectMongo(client, () =>
    Promise.all([
      webhooks.createIndexes([{ key: { workspace_id: 1, created_seq: 1 } }, { key: { status: 1 } }]),
      attempts.createIndex({ webhook_id: 1, _id: -1 }),
    ]),
  );
  const sinceTrim = new Map<string, number>();

  const trim = async (webhookId: string) => {
    const oldestKept = await attempts
      .find({ webhook_id: webhookId }, { projection: { _id: 1 } })
      .sort({ _id: -1 })
      .skip(DELIVERY_LOG_SIZE - 1)
      .limit(1)
      .next();
    if (oldestKept) await attempts.deleteMany({ webhook_id: webhookId, _id: { $lt: oldestKept._id } });
  };

  return {
    insert: guard(async ({ webhook, progress }) => {
      await webhooks.insertOne({
        _id: webhook.id,
        workspace_id: webhook.workspaceId,
        status: webhook.status,
        revision: webhook.revision,
        // Listing order: creation, to the millisecond and then by id (ties are rare and harmless).
        created_seq: Date.parse(webhook.createdAt),
        config: configOf(webhook),
        epoch: progress.epoch,
        ...progressFields(progress),
      });
    }),
    get: guard(async (workspaceId, id) => {
      const doc = await webhooks.findOne({ _id: id, workspace_id: workspaceId });
      return doc ? storedOf(doc) : null;
    }),
    list: guard(async (workspaceId) =>
      (await webhooks.find({ workspace_id: workspaceId }).sort({ created_seq: 1, _id: 1 }).toArray()).map(storedOf),
    ),
    listActive: guard(async () => (await webhooks.find({ status: 'active' }).toArray()).map(storedOf)),
    countByStatus: guard(async () =>
      statusCounts(
        (await webhooks.aggregate<{ _id: string; count: number }>([{ $group: { _id: '$status', count: { $sum: 1 } } }]).toArray()).map(
          (r) => ({ status: r._id, count: r.count }),
        ),
      ),
    ),
    update: guard(async (webhook, expectedRevision, { resetFailures = false } = {}) => {
      const result = await webhooks.updateOne(
        { _id: webhook.id, workspace_id: webhook.workspaceId, revision: expectedRevision },
        { $set: { status: webhook.status, revision: webhook.revision, config: configOf(webhook), ...(resetFailures ? CLEAN_RECORD : {}) } },
      );
      return result.matchedCount === 1;
    }),
    rewind: guard(async (workspaceId, id, after) => {
      // Conditional on the epoch read, so two replays at once cannot both start from the same one.
      for (;;) {
        const doc = await webhooks.findOne({ _id: id, workspace_id: workspaceId });
        if (!doc) return null;
        const next = rewound(storedOf(doc).progress, after);
        const r = await webhooks.updateOne({ _id: id, epoch: doc.epoch }, { $set: { epoch: next.epoch, ...progressFields(next) } });
        if (r.matchedCount === 1) return next;
      }
    }),
    saveProgress: guard(async (webhookId, epoch, progress, made = []) => {
      if (made.length > 0 && (await webhooks.countDocuments({ _id: webhookId }, { limit: 1 })) > 0) {
        // Ids made here, in order, so the attempts of one save sort as they were made (ordered insert).
        await attempts.insertMany(
          made.map(({ webhookId: _w, eventPosition, ...rest }) => ({
            ...rest,
            _id: new ObjectId(),
            webhook_id: webhookId,
            eventPosition: eventPosition.toString(),
          })),
        );
        const n = (sinceTrim.get(webhookId) ?? 0) + made.length;
        sinceTrim.set(webhookId, n % TRIM_EVERY);
        if (n >= TRIM_EVERY) await trim(webhookId);
      }
      const r = await webhooks.updateOne({ _id: webhookId, epoch }, { $set: progressFields(progress) });
      return r.matchedCount === 1;
    }),
    deliveries: guard(async (webhookId, { limit, before }) => {
      if (before !== undefined && !ObjectId.isValid(before)) throw new InvalidCursor(`not an attempt id: ${before}`);
      const filter = before === undefined ? { webhook_id: webhookId } : { webhook_id: webhookId, _id: { $lt: new ObjectId(before) } };
      const docs = await attempts.find(filter).sort({ _id: -1 }).limit(limit).toArray();
      return docs.map(({ _id, webhook_id, eventPosition, ...rest }) => ({
        ...rest,
        id: _id.toHexString(),
        webhookId: webhook_id,
        eventPosition: BigInt(eventPosition),
      }));
    }),
    delete: guard(async (workspaceId, id) => {
      const r = await webhooks.deleteOne({ _id: id, workspace_id: workspaceId });
      if (r.deletedCount === 0) return false;
      await attempts.deleteMany({ webhook_id: id });
      sinceTrim.delete(id);
      return true;
    }),
    close: () => client.close(),
  };
};
