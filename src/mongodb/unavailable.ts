import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
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
