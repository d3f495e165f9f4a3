import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PresetJson, ReadModel } from './readmodel/readModel';

/**
 * Read-your-writes: wait until the read model shows a preset at (at least) a stream revision.
 * A projector in this process announces each document it writes, so the waiter answers from that
 * announcement without reading again; a projector in another process is seen by polling.
 * Resolves null when the bound passes: the write happened, the answer is a 202.
 */
export interface WaitOptions {
  readModel: ReadModel;
  /** The in-process projector's emitter: 'projected' (position, records), when there is one. */
  projected?: EventEmitter;
  pollIntervalMs?: number;
}

export type ProjectionWaiter = (workspaceId: string, slug: string, revision: bigint, timeoutMs: number) => Promise<PresetJson | null>;

export const createProjectionWaiter = ({ readModel, projected, pollIntervalMs = 25 }: WaitOptions): ProjectionWaiter =>
  (workspaceId, slug, revision, timeoutMs) => {
    const reached = (r: PresetJson | null | undefined): r is PresetJson =>
      !!r && r.revision >= revision && r.workspaceId === workspaceId && r.slug === slug;
    const check = async () => {
      const record = await readModel.getPresetJson(workspaceId, slug);
      return reached(record) ? record : null;
    };
    if (!projected) return poll(check, timeoutMs, pollIntervalMs);
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (outcome: () => void) => {
        if (done) return;
        done = true;
        projected.off('projected', onProjected);
        clearTimeout(deadline);
        clearInterval(slowPoll);
        outcome();
      };
      const finish = (record: PresetJson | null) => settle(() => resolve(record));
      const onProjected = (_position: bigint, records: PresetJson[]) => {
        const record = records.find(reached);
        if (record) finish(record);
      };
      const look = () => check().then((record) => record && finish(record), (error) => settle(() => reject(error)));
      projected.on('projected', onProjected);
      const deadline = setTimeout(() => finish(null), timeoutMs);
      // Listening first, then looking, so a document written in between is not missed; the slow
      // poll covers a projector in another process writing the same read model.
      const slowPoll = setInterval(look, pollIntervalMs * 10);
      void look();
    });
  };

const poll = async (check: () => Promise<PresetJson | null>, timeoutMs: number, intervalMs: number) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await check();
    if (record) return record;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(left, intervalMs));
  }
};
