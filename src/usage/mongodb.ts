import { MongoClient, type Collection } from 'mongodb';
import { mongoUnavailable, connectMongo } from '../mongodb/unavailable';
import { compareCounts, type UsageStore } from './usageStore';

/** The collection of usage counts, beside the read model's (used when MONGODB_URL is set). */
export const USAGE_COLLECTION = 'usage';

interface UsageDocument {
  workspace_id: string;
  preset_id: string;
  /** '' for none, as on SQLite, so the unique index holds. */
  label: string;
  version: number;
  hour: string;
  count: number;
}

/**
 * Usage on MongoDB: one document per (workspace, preset, label, version, hour) under a unique
 * index, added to by `$inc` upserts in one unordered bulk write per flush.
 */
export const openMongoUsageStore = async (options: { url: string; database?: string }): Promise<UsageStore> => {
  const client = new MongoClient(options.url);
  const usage: Collection<UsageDocument> = client.db(options.database).collection(USAGE_COLLECTION);
  await connectMongo(client, () => usage.createIndex({ workspace_id: 1, preset_id: 1, hour: 1, label: 1, version: 1 }, { unique: true }));
  return {
    async add(counts) {
      if (counts.length === 0) return;
      try {
        await usage.bulkWrite(
          counts.map((c) => ({
            updateOne: {
              filter: { workspace_id: c.workspaceId, preset_id: c.presetId, hour: c.hour, label: c.label ?? '', version: c.version },
              update: { $inc: { count: c.count } },
              upsert: true,
            },
          })),
          { ordered: false },
        );
      } catch (error) {
        throw mongoUnavailable(error);
      }
    },
    async query(workspaceId, presetId, from, to) {
      try {
        const docs = await usage
          .find({ workspace_id: workspaceId, preset_id: presetId, hour: { $gte: from.toISOString(), $lt: to.toISOString() } })
          .toArray();
        return docs
          .map((d) => ({
            workspaceId: d.workspace_id,
            presetId: d.preset_id,
            label: d.label === '' ? null : d.label,
            version: d.version,
            hour: d.hour,
            count: d.count,
          }))
          .sort(compareCounts);
      } catch (error) {
        throw mongoUnavailable(error);
      }
    },
    async close() {
      await client.close();
    },
  };
};
