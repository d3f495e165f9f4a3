import type * as E from 'fp-ts/Either';

/**
 * The write side of one kind of stream as pure functions (the decider pattern): `evolve` folds the
 * stream's events into the little state a decision needs, `decide` turns a command and that state
 * into the events to append (none when the command changes nothing) or a rejection.
 */
export interface Decider<State, Command, Event, Rejection> {
  decide(command: Command, state: State): E.Either<Rejection, Event[]>;
  evolve(state: State, event: Event): State;
  initialState(): State;
}
