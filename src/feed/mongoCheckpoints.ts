import { Decimal128, MongoClient, MongoServerError, type Collection } from 'mongodb';
import { guardedByMongoUnavailable as guard, connectMongo } from '../mongodb/unavailable';
import type { ClosableCheckpointStore } from './checkpoints';

/**
 * Checkpoints on MongoDB (with MONGODB_URL): one document per processor, written with majority
 * write concern. The position is a Decimal128 so that the forward-only update compares numbers.
 */
export const CHECKPOINTS_COLLECTION = 'processor_checkpoints';

interface Stored {
  _id: string;
  position: Decimal128;
}
const DUPLICATE_KEY = 11000;

export const openMongoCheckpoints = async (options: { url: string; database?: string }): Promise<ClosableCheckpointStore> => {
  const client = new MongoClient(options.url);
  const checkpoints: Collection<Stored> = client
    .db(options.database)
    .collection(CHECKPOINTS_COLLECTION, { writeConcern: { w: 'majority' } });
  await connectMongo(client);
  return {
    read: guard(async (name: string) => {
      const found = await checkpoints.findOne({ _id: name });
      return found ? BigInt(found.position.toString()) : null;
    }),
    store: guard(async (name: string, position: bigint) => {
      const at = Decimal128.fromString(position.toString());
      try {
        // Forward only: the document is replaced only where it is behind (or created where it is missing).
        await checkpoints.updateOne({ _id: name, position: { $lt: at } }, { $set: { position: at } }, { upsert: true });
      } catch (error) {
        // The document exists at or past `position`: the filter missed it and the upsert collided with it.
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return;
        throw error;
      }
    }),
    close: () => client.close(),
  };
};
