import type { Checkpoint, ProjectionChange, ReadModel } from '#projections/readmodel/readModel';

/**
 * FOR TESTS ONLY: a read model that "crashes" between writing a batch's documents and moving the
 * checkpoint. `apply` writes the changes with the checkpoint the read model already holds (so
 * the documents land but the position does not move), then throws, as a process killed at that
 * moment would leave things. The projector must replay those events, and its idempotent writes
 * must make the replay change nothing. A stored checkpoint of null is written as 0 (before the
 * first event), which a projector reads back as "from the start".
 */
export class InjectedCrash extends Error {
  override readonly name = 'InjectedCrash';
}

export interface CrashingReadModel extends ReadModel {
  /** How many applies crashed so far. */
  crashes(): number;
}

/** Crashes the applies for which `shouldCrash(n)` is true (n counts applies from 1). */
export const crashBeforeCheckpoint = (inner: ReadModel, shouldCrash: (n: number) => boolean): CrashingReadModel => {
  let applies = 0;
  let crashes = 0;
  // Delegates everything else to `inner` through the prototype, whatever its shape.
  const wrapper = Object.create(inner) as CrashingReadModel;
  wrapper.apply = async (changes: ProjectionChange[], checkpoint: Checkpoint) => {
    applies++;
    if (!shouldCrash(applies)) return inner.apply(changes, checkpoint);
    const previous = (await inner.checkpoint(checkpoint.name)) ?? 0n;
    await inner.apply(changes, { name: checkpoint.name, position: previous });
    crashes++;
    throw new InjectedCrash(
      `injected crash after writing ${changes.length} changes, before the checkpoint moved to ${checkpoint.position}`,
    );
  };
  wrapper.crashes = () => crashes;
  return wrapper;
};
