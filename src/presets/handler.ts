import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/Either';
import { ConcurrencyConflict, type EventStore } from '../eventstore/eventStore';
import { foldFromStore, type StreamStates } from '../eventstore/states';
import {
  presetDecider,
  type AddPresetVersion,
  type ChangePreset,
  type DecisionError,
  type DesignateVersion,
  type MoveLabel,
  type PresetCommand,
  type PresetState,
  type RemoveLabel,
} from './decider';
import { CURRENT_SCHEMA_VERSION, decodeEvent, toNewEvent, type EventMetadata, type PresetEvent, type SourceFormat } from './events';
import { presetStreamName } from './streamName';

/**
 * The command handler: load the preset's state (folded from its stream), decide, append with
 * optimistic concurrency (expected "no stream" for a new preset, else the revision the state
 * reflects). A stream that moved on in between makes the store throw ConcurrencyConflict (a 409):
 * the change is neither lost nor doubled, and the client may retry.
 */
type Request<C> = Omit<C, 'now' | 'newPresetId' | 'newVersionId'>;
export type PresetCommandRequest =
  Request<AddPresetVersion> | Request<DesignateVersion> | Request<ChangePreset> | Request<MoveLabel> | Request<RemoveLabel>;

export interface CommandContext {
  requestId: string;
  /** The API key that made the request (its id, never the key): the audit report's key column. */
  keyId?: string;
  /** Set when the command comes from an inference request body. */
  sourceFormat?: SourceFormat;
  /** The stream revision the client saw (If-Match); a different current revision is a conflict. */
  expectedRevision?: bigint;
}

export interface CommandOutcome {
  /** The events appended; none when the command changed nothing. */
  events: PresetEvent[];
  state: PresetState;
  /** Revision of the stream after the command (of the last event appended, or as read). */
  revision: bigint;
  /** Position of the last event appended, null when none was. */
  position: bigint | null;
}

/**
 * The stream is not at the revision the client named (If-Match): a 412, not a 409, because the
 * client must read the preset again rather than retry. A subclass, so code that only cares about
 * a conflict still catches it.
 */
export class PreconditionFailed extends ConcurrencyConflict {}

export class DecisionRejected extends Error {
  override readonly name = 'DecisionRejected';
  constructor(readonly reason: DecisionError) {
    super(reason.message);
  }
}

/** Presets' states folded from the store, event by event. */
export const presetStates = (eventStore: Pick<EventStore, 'read'>): StreamStates<PresetState> =>
  foldFromStore(eventStore, { ...presetDecider, decode: (recorded) => decodeEvent(recorded).event });

export interface PresetCommandDeps {
  eventStore: EventStore;
  /** Where states come from; by default folded from the store every time (the service adds a cache). */
  states?: StreamStates<PresetState>;
  newId?: () => string;
  clock?: () => Date;
}

export type PresetCommandHandler = (request: PresetCommandRequest, context: CommandContext) => Promise<CommandOutcome>;

export const createPresetCommandHandler = ({
  eventStore,
  states = presetStates(eventStore),
  newId = randomUUID,
  clock = () => new Date(),
}: PresetCommandDeps): PresetCommandHandler => {
  const { decide, evolve } = presetDecider;
  return async (request, context) => {
    const stream = presetStreamName(request.workspaceId, request.slug);
    const { state, revision: current } = await states.load(stream);
    if (context.expectedRevision !== undefined && context.expectedRevision !== current) {
      throw new PreconditionFailed(stream, context.expectedRevision, current ?? 'no_stream');
    }
    const command: PresetCommand =
      request.type === 'AddPresetVersion'
        ? { ...request, now: clock(), newPresetId: newId(), newVersionId: newId() }
        : { ...request, now: clock() };
    const decision = decide(command, state);
    if (E.isLeft(decision)) throw new DecisionRejected(decision.left);
    const events = decision.right;
    if (events.length === 0) return { events, state, revision: current ?? -1n, position: null };
    const metadata: EventMetadata = {
      requestId: context.requestId,
      actorUserId: request.actorUserId,
      schemaVersion: CURRENT_SCHEMA_VERSION,
      ...(context.sourceFormat ? { sourceFormat: context.sourceFormat } : {}),
      ...(context.keyId ? { keyId: context.keyId } : {}),
    };
    const { revision, position } = await eventStore
      .append(
        stream,
        events.map((event) => toNewEvent(newId(), event, metadata)),
        current ?? 'no_stream',
      )
      .catch((error: unknown) => {
        // With If-Match the append's expected revision is the client's: losing the race means the
        // precondition is false now, and retrying the same request could only fail again.
        if (context.expectedRevision === undefined || !(error instanceof ConcurrencyConflict)) throw error;
        throw new PreconditionFailed(stream, context.expectedRevision, error.actual);
      });
    const after = events.reduce(evolve, state);
    states.saved(stream, { state: after, revision });
    return { events, state: after, revision, position };
  };
};
