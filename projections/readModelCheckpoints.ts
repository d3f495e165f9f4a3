import type { CheckpointStore } from '../src/feed/checkpoints';
import type { ReadModel } from './readmodel/readModel';

/**
 * The read model's checkpoints as a processor's checkpoint store (src/feed/checkpoints.ts). The
 * projector writes its checkpoint in the same transaction as the documents (projectBatch, which
 * tells the processor so); `store` is for the rest: a position moved past events it does not
 * project, written alone, and only forward.
 */
export const readModelCheckpoints = (readModel: Pick<ReadModel, 'apply' | 'checkpoint'>): CheckpointStore => ({
  read: (name) => readModel.checkpoint(name),
  async store(name, position) {
    const current = await readModel.checkpoint(name);
    if (current === null || position > current) await readModel.apply([], { name, position });
  },
});
