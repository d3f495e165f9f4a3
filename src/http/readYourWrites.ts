import { setTimeout as sleep } from 'node:timers/promises';
import type { Announcements, PresetJson, ReadModelQueries } from '../../projections/readmodel/readModel';

/**
 * Read-your-writes: wait until the read model shows a preset at (at least) a stream revision.
 * A projector in this process announces each document it writes, so the waiter answers from that
 * announcement without reading again; a projector in another process is seen by polling.
 * Resolves null when the bound passes: the write happened, the answer is a 202.
 */
export interface WaitOptions {
  readModel: Pick<ReadModelQueries, 'getPresetJson'>;
  /** The in-process projector's announcements, when there is one. */
  projected?: Announcements;
  pollIntervalMs?: number;
  /** How many presets' last announced revisions are remembered (see `announced` below). */
  rememberedAnnouncements?: number;
}

export type ProjectionWaiter = (workspaceId: string, slug: string, revision: bigint, timeoutMs: number) => Promise<PresetJson | null>;

interface Waiter {
  workspaceId: string;
  slug: string;
  revision: bigint;
  since: number;
  finish(record: PresetJson | null): void;
  fail(error: unknown): void;
}

export const createProjectionWaiter = ({
  readModel,
  projected,
  pollIntervalMs = 25,
  rememberedAnnouncements = 4096,
}: WaitOptions): ProjectionWaiter => {
  const check = async (workspaceId: string, slug: string, revision: bigint) => {
    const record = await readModel.getPresetJson(workspaceId, slug);
    return record && record.revision >= revision && record.workspaceId === workspaceId && record.slug === slug ? record : null;
  };
  if (!projected)
    return (workspaceId, slug, revision, timeoutMs) => poll(() => check(workspaceId, slug, revision), timeoutMs, pollIntervalMs);

  // Waiters by preset, served by ONE listener: a write costs a map entry, not a listener that
  // every announcement would call.
  const waiting = new Map<string, Set<Waiter>>();
  // The last revision announced per preset, for the most recent ones. A write's answer (from the
  // event store's writer) and its document's announcement (from the projector) come from different
  // threads in either order: a wait that starts after the announcement reads the document instead.
  // Only revisions are kept, so the documents die young.
  const announced = new Map<string, bigint>();
  const key = (workspaceId: string, slug: string) => `${workspaceId}/${slug}`;

  projected.on('projected', (_position, documents) => {
    for (const doc of documents) {
      const k = key(doc.workspaceId, doc.slug);
      announced.delete(k); // re-inserted last: the map's order is the order of announcement
      announced.set(k, doc.revision);
      if (announced.size > rememberedAnnouncements) announced.delete(announced.keys().next().value!);
      const waiters = waiting.get(k);
      if (waiters) for (const w of waiters) if (doc.revision >= w.revision) w.finish(doc);
    }
  });

  // The safety net, one timer for all waits: a document written by a projector in another
  // process, or an announcement that was not remembered, is found by reading, every 10 polls;
  // only waits that have lasted a whole tick are read (most writes are answered well before).
  let slowPoll: NodeJS.Timeout | undefined;
  let ticks = 0;
  const look = (w: Waiter) =>
    check(w.workspaceId, w.slug, w.revision).then(
      (record) => record && w.finish(record),
      (error) => w.fail(error),
    );
  const lookAll = () => {
    ticks++;
    for (const waiters of waiting.values()) for (const w of waiters) if (ticks - w.since >= 2) void look(w);
  };

  return (workspaceId, slug, revision, timeoutMs) =>
    new Promise<PresetJson | null>((resolve, reject) => {
      const k = key(workspaceId, slug);
      let done = false;
      const settle = (outcome: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(deadline);
        const waiters = waiting.get(k)!;
        waiters.delete(waiter);
        if (waiters.size === 0) waiting.delete(k);
        if (waiting.size === 0) {
          clearInterval(slowPoll);
          slowPoll = undefined;
        }
        outcome();
      };
      const waiter: Waiter = {
        workspaceId,
        slug,
        revision,
        since: ticks,
        finish: (record) => settle(() => resolve(record)),
        fail: (error) => settle(() => reject(error)),
      };
      const deadline = setTimeout(() => waiter.finish(null), timeoutMs);
      const waiters = waiting.get(k) ?? new Set<Waiter>();
      waiters.add(waiter);
      waiting.set(k, waiters);
      slowPoll ??= setInterval(lookAll, pollIntervalMs * 10);
      const seen = announced.get(k);
      if (seen !== undefined && seen >= revision) void look(waiter);
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
