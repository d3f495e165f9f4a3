import { once, type EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PresetRecord, ReadModel } from './readmodel/readModel';

/**
 * Read-your-writes: wait until the read model shows a preset at (at least) a stream revision.
 * A projector in this process wakes the waiter at once; a projector in another process is seen by
 * polling. Resolves null when the bound passes: the write happened, the answer is a 202.
 */
export interface WaitOptions {
  readModel: ReadModel;
  /** The in-process projector's emitter ('projected'), when there is one. */
  projected?: EventEmitter;
  pollIntervalMs?: number;
}

export const createProjectionWaiter = ({ readModel, projected, pollIntervalMs = 25 }: WaitOptions) =>
  async (workspaceId: string, slug: string, revision: bigint, timeoutMs: number): Promise<PresetRecord | null> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await readModel.getPreset(workspaceId, slug);
      if (record && record.revision >= revision) return record;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const wait = Math.min(left, pollIntervalMs);
      if (projected) await once(projected, 'projected', { signal: AbortSignal.timeout(wait) }).catch(() => undefined);
      else await sleep(wait);
    }
  };
