import * as E from 'fp-ts/Either';
import type { Decider } from './decider';
import { ConcurrencyConflict, type EventStore, type NewEvent, type StreamName } from './eventStore';
import type { Folded, StreamStates } from './states';

/**
 * The one command handler, for any decider (Emmett's `handleCommandWithDecider`): load the
 * stream's state, `decide`, append the events with the revision the state reflects as the
 * expected one (a new stream expects "no stream"). A stream that moved on in between makes the
 * store throw ConcurrencyConflict, which the error middleware answers with 409: the change is
 * neither lost nor doubled, and the client may retry. Where the states keep a cache, a command is
 * first tried on the cached state without reading the stream (`appendOnCached`).
 *
 * A rejection carries a kind, and the error middleware maps the kind to a status, so it needs to
 * know no domain's rejections.
 */
export type RejectionKind = 'not_found' | 'conflict' | 'forbidden' | 'precondition' | 'internal';

export interface Rejection {
  kind: RejectionKind;
  message: string;
  /** A word for programs, answered as `metadata.reason` (e.g. "preset_archived"). */
  reason?: string;
}

export class CommandRejected extends Error {
  override readonly name = 'CommandRejected';
  constructor(readonly rejection: Rejection) {
    super(rejection.message);
  }
}

/**
 * The stream is not at the revision the client named (If-Match): a 412, not a 409, because the
 * client must read again rather than retry. A subclass, so code that only cares about a conflict
 * still catches it.
 */
export class PreconditionFailed extends ConcurrencyConflict {}

export interface HandledCommand<State, Event> {
  /** The events appended; none when the command changed nothing. */
  events: Event[];
  state: State;
  /** Revision of the stream after the command (of the last event appended, or as read); -1n: no stream. */
  revision: bigint;
  /** Position of the last event appended, null when none was. */
  position: bigint | null;
}

export interface CommandHandlerDeps<State, Command, Event, R extends Rejection> {
  eventStore: Pick<EventStore, 'append'>;
  states: StreamStates<State>;
  decider: Decider<State, Command, Event, R>;
  /** The event as stored: its id and metadata (who, when, request) are the caller's. */
  toNewEvent: (event: Event, command: Command) => NewEvent;
}

interface CommandOptions {
  /** The revision the client saw (If-Match): another current revision is a PreconditionFailed. */
  expectedRevision?: bigint;
}

/** Appends the decided events expecting `expected`, then keeps and answers the state they leave. */
const appendDecided = async <State, Command, Event, R extends Rejection>(
  { eventStore, states, decider, toNewEvent }: CommandHandlerDeps<State, Command, Event, R>,
  stream: StreamName,
  command: Command,
  state: State,
  events: Event[],
  expected: bigint | 'no_stream',
): Promise<HandledCommand<State, Event>> => {
  const { revision, position } = await eventStore.append(
    stream,
    events.map((event) => toNewEvent(event, command)),
    expected,
  );
  const after = events.reduce(decider.evolve, state);
  states.saved(stream, { state: after, revision });
  return { events, state: after, revision, position };
};

/**
 * Decides on the state a cache holds and appends expecting its revision, without reading the
 * stream first. The append's revision check is what makes this safe: it succeeds only if the
 * stream is still at that revision, that is if the cached state was the stream's. Anything else
 * (a conflict, a rejection, nothing to append, an If-Match that names another revision) may be the
 * cache being behind another process's appends, so it answers undefined and the caller decides
 * again on the state read from the store. No event is stored by a failed attempt.
 */
const appendOnCached = async <State, Command, Event, R extends Rejection>(
  deps: CommandHandlerDeps<State, Command, Event, R>,
  stream: StreamName,
  command: Command,
  { state, revision: current }: Folded<State>,
  { expectedRevision }: CommandOptions,
): Promise<HandledCommand<State, Event> | undefined> => {
  if (current === null || (expectedRevision !== undefined && expectedRevision !== current)) return undefined;
  const decision = deps.decider.decide(command, state);
  if (E.isLeft(decision) || decision.right.length === 0) return undefined;
  return appendDecided(deps, stream, command, state, decision.right, current).catch((error: unknown) => {
    if (error instanceof ConcurrencyConflict) return undefined;
    throw error;
  });
};

export const handleCommand = async <State, Command, Event, R extends Rejection>(
  deps: CommandHandlerDeps<State, Command, Event, R>,
  stream: StreamName,
  command: Command,
  options: CommandOptions = {},
): Promise<HandledCommand<State, Event>> => {
  const { states, decider } = deps;
  // A stream this process wrote or read lately: its cached state saves the read (usually empty)
  // of what came after it, on the thread that serves HTTP.
  const cached = states.cached?.(stream);
  const optimistic = cached && (await appendOnCached(deps, stream, command, cached, options));
  if (optimistic) return optimistic;

  const { state, revision: current } = await states.load(stream);
  const { expectedRevision } = options;
  if (expectedRevision !== undefined && expectedRevision !== current) {
    throw new PreconditionFailed(stream, expectedRevision, current ?? 'no_stream');
  }
  const decision = decider.decide(command, state);
  if (E.isLeft(decision)) throw new CommandRejected(decision.left);
  const events = decision.right;
  if (events.length === 0) return { events, state, revision: current ?? -1n, position: null };
  return appendDecided(deps, stream, command, state, events, current ?? 'no_stream').catch((error: unknown) => {
    // With If-Match the expected revision is the client's: losing the race means the
    // precondition is false now, and retrying the same request could only fail again.
    if (expectedRevision === undefined || !(error instanceof ConcurrencyConflict)) throw error;
    throw new PreconditionFailed(stream, expectedRevision, error.actual);
  });
};
