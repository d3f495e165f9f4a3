import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { guardedByMongoUnavailable as guard, connectMongo } from '../mongodb/unavailable';
import { decodeDocument, toDocument, type ConsumerGroupStore, type GroupDocument } from './store';

/**
 * Consumer groups on MongoDB (with MONGODB_URL), beside the webhooks: one document per group,
 * changed only at the revision it was read at (a filter on `revision`), with majority write
 * concern so an acknowledged position survives a primary's failover.
 */
export const CONSUMER_GROUPS_COLLECTION = 'consumer_groups';

type Stored = GroupDocument & { _id: string };
const DUPLICATE_KEY = 11000;

const idOf = (workspaceId: string, name: string) => `${workspaceId}/${name}`;
/** Each document on its own, named by its key: one that cannot be read is named as such. */
const read = ({ _id, ...document }: Stored) => {
  const slash = _id.indexOf('/');
  return decodeDocument({ workspaceId: _id.slice(0, slash), name: _id.slice(slash + 1) }, document);
};

export const openMongoConsumerGroupStore = async (options: { url: string; database?: string }): Promise<ConsumerGroupStore> => {
  const client = new MongoClient(options.url);
  const groups: Collection<Stored> = client
    .db(options.database)
    .collection(CONSUMER_GROUPS_COLLECTION, { writeConcern: { w: 'majority' } });
  await connectMongo(client, () => groups.createIndex({ workspace_id: 1, name: 1 }));
  return {
    get: guard(async (workspaceId, name) => {
      const d = await groups.findOne({ _id: idOf(workspaceId, name) });
      return d ? read(d) : null;
    }),
    list: guard(async (workspaceId) => (await groups.find({ workspace_id: workspaceId }).sort({ name: 1 }).toArray()).map(read)),
    listAll: guard(async () => (await groups.find({}).toArray()).map(read)),
    insert: guard(async (group) => {
      try {
        await groups.insertOne({ _id: idOf(group.workspaceId, group.name), ...toDocument(group) });
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
        throw error;
      }
    }),
    update: guard(async (group, expectedRevision) => {
      const result = await groups.replaceOne({ _id: idOf(group.workspaceId, group.name), revision: expectedRevision }, toDocument(group));
      return result.matchedCount === 1;
    }),
    delete: guard(async (workspaceId, name) => (await groups.deleteOne({ _id: idOf(workspaceId, name) })).deletedCount === 1),
    close: () => client.close(),
  };
};
