import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError, type MongoClient } from 'mongodb';
import { StoreUnavailable } from '../eventstore/eventStore';

/**
 * A MongoDB error that means the server cannot be reached (a 503 to the caller, as for a full
 * disk on the embedded stores), or the error as it was. Shared by every MongoDB adapter.
 */
export const mongoUnavailable = (error: unknown): unknown =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNotConnectedError ||
  error instanceof MongoTopologyClosedError
    ? new StoreUnavailable(`MongoDB unavailable: ${(error as Error).message}`, { cause: error })
    : error;

/** An adapter's operation whose unreachable-server errors reach the caller as StoreUnavailable (mongoUnavailable). */
export const guardedByMongoUnavailable =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await f(...args);
    } catch (error) {
      throw mongoUnavailable(error);
    }
  };

/**
 * Connects an adapter's client, then `prepare`s its collections (indexes); a server that cannot be
 * reached is StoreUnavailable (mongoUnavailable), and the client is closed on any failure.
 */
export const connectMongo = async (client: MongoClient, prepare: () => Promise<unknown> = async () => undefined): Promise<void> => {
  try {
    await client.connect();
    await prepare();
  } catch (error) {
    await client.close().catch(() => {});
    throw mongoUnavailable(error);
  }
};
