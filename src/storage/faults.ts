/**
 * What every store's adapters share of failure, whatever they are built on (SQLite, EventStoreDB,
 * MongoDB, memory): the HTTP layer answers it with a 503, and it names no backend.
 */

/** The store cannot take writes now (disk full, read-only, unreachable): a 503, not a 500. */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
