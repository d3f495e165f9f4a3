/**
 * Where a processor (processor.ts) keeps how far it has handled the log: one port, by processor
 * name. `store` moves a checkpoint forward only: a position at or behind the stored one changes
 * nothing, so a processor started again from an older read, or two instances racing, never take
 * one back. Implementations: in memory (here), embedded (sqliteCheckpoints.ts), server
 * (mongoCheckpoints.ts); a store that keeps its checkpoint in the same transaction as its writes
 * (the read model: projections/projector.ts) implements it too. One contract suite
 * (test/contract/checkpointStoreContract.ts) holds every implementation.
 */
export interface CheckpointStore {
  /** The stored position (null: none yet, start from the beginning). */
  read(name: string): Promise<bigint | null>;
  /** Moves the checkpoint to `position` if it is past the stored one. */
  store(name: string, position: bigint): Promise<void>;
}

export interface ClosableCheckpointStore extends CheckpointStore {
  close(): Promise<void>;
}

/** Checkpoints for the life of the process: a processor whose state is in memory too (the key ring), and tests. */
export const memoryCheckpoints = (): ClosableCheckpointStore => {
  const positions = new Map<string, bigint>();
  return {
    read: async (name) => positions.get(name) ?? null,
    async store(name, position) {
      const current = positions.get(name);
      if (current === undefined || position > current) positions.set(name, position);
    },
    async close() {},
  };
};
