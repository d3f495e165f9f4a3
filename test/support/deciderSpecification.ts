import * as E from 'fp-ts/Either';
import type { Decider } from '#src/eventstore/decider';

/**
 * Given / when / then for a decider, as in EventSourcing.NodeJS's `DeciderSpecification`:
 *
 *   const given = DeciderSpecification.for(presetDecider);
 *   given([created]).when(designate(1)).then([designated]);
 *
 * `given` events are folded with the decider's own `evolve` from its `initialState`, so a test
 * states a history as events, the way the store holds it.
 */
export const DeciderSpecification = {
  for:
    <State, Command, Event, Rejection>(decider: Decider<State, Command, Event, Rejection>) =>
    (given: Event[] = []) => ({
      when: (command: Command) => {
        const decide = () => decider.decide(command, given.reduce(decider.evolve, decider.initialState()));
        const decided = (): Event[] => {
          const result = decide();
          if (E.isLeft(result)) throw new Error(`expected events, but the command was rejected: ${JSON.stringify(result.left)}`);
          return result.right;
        };
        return {
          then: (expected: Event[]) => expect(decided()).toEqual(expected),
          thenNothing: () => expect(decided()).toEqual([]),
          thenRejects: (expected: Partial<Rejection>) => expect(decide()).toEqual(E.left(expect.objectContaining(expected))),
        };
      },
    }),
};
