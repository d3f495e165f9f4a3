import type { RecordedEvent } from '#src/eventstore/eventStore';
import { CURRENT_SCHEMA_VERSION } from '#src/presets/events';
import { projectBatch } from '#projections/projectBatch';
import { openMemoryReadModel, type MemoryReadModel } from '#projections/readmodel/memory';

/**
 * Given / when / then for the preset projection, as Emmett's projection specifications read:
 *
 *   ProjectionSpecification.for()
 *     .given([created('bot'), added('bot', 2)])
 *     .when([designated('bot', 1)])
 *     .then(async (readModel) => expect(...));
 *
 * Events are `{ stream, type, data }` (metadata as a request's, revision and position by order).
 * The given events and then the new ones go through the projector's own batch step
 * (projections/projectBatch.ts) into a memory read model; `then` runs its check on the read model
 * after the events were projected once, and checks first that projecting every event twice (a
 * redelivery after a crash, a second projector) leaves the read model exactly as once did.
 */
export interface SpecEvent {
  stream: string;
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
}

const recorded = (events: readonly SpecEvent[]): RecordedEvent[] => {
  const revisions = new Map<string, bigint>();
  return events.map((e, i) => {
    const revision = revisions.get(e.stream) ?? 0n;
    revisions.set(e.stream, revision + 1n);
    return {
      id: `event-${i}`,
      type: e.type,
      stream: e.stream,
      revision,
      position: BigInt(i + 1),
      data: e.data,
      metadata: { requestId: `r${i}`, actorUserId: 'user-1', schemaVersion: CURRENT_SCHEMA_VERSION, ...e.metadata },
      recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    };
  });
};

/** Everything the memory read model holds, in a stable order, with its checkpoint. */
const holdings = async (readModel: MemoryReadModel) => ({
  checkpoint: await readModel.checkpoint(CHECKPOINT),
  entries: [...readModel.entries()]
    .map(({ record, versions }) => ({ record, versions }))
    .sort((a, b) => (a.record.view.id < b.record.view.id ? -1 : 1)),
});

const CHECKPOINT = 'specification';

/** Projects each event in its own batch (as the live projector does under light load), `times` times in a row. */
const project = async (events: readonly RecordedEvent[], times: number) => {
  const readModel = openMemoryReadModel();
  for (const event of events) for (let i = 0; i < times; i++) await projectBatch(readModel, [event], CHECKPOINT);
  return readModel;
};

export const ProjectionSpecification = {
  for: () => ({
    given: (given: readonly SpecEvent[] = []) => ({
      when: (when: readonly SpecEvent[]) => ({
        then: async (check: (readModel: MemoryReadModel) => unknown) => {
          const events = recorded([...given, ...when]);
          const once = await project(events, 1);
          expect(await holdings(await project(events, 2))).toEqual(await holdings(once));
          // One batch of all of them, as a rebuild pages them: the same read model too.
          const paged = openMemoryReadModel();
          await projectBatch(paged, events, CHECKPOINT);
          expect(await holdings(paged)).toEqual(await holdings(once));
          await check(once);
        },
        thenFails: async (error: RegExp | (new (...args: never[]) => Error)) => {
          await expect(project(recorded([...given, ...when]), 1)).rejects.toThrow(error);
        },
      }),
    }),
  }),
};
