import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/Either';
import { ConcurrencyConflict, type EventStore } from '../eventstore/eventStore';
import { decide, evolve, initialState, type AddPresetVersion, type DecisionError, type DesignateVersion, type PresetCommand, type PresetState } from './decider';
import { CURRENT_SCHEMA_VERSION, decodeEvent, toNewEvent, type EventMetadata, type PresetEvent, type SourceFormat } from './events';
import { presetStreamName } from './streamName';

/**
 * The command handler: read the preset's stream, fold it, decide, append with optimistic
 * concurrency (expected "no stream" for a new preset, else the revision it read). A stream that
 * moved on in between makes the store throw ConcurrencyConflict (a 409): the change is neither
 * lost nor doubled, and the client may retry.
 */
type Request<C> = Omit<C, 'now' | 'newPresetId' | 'newVersionId'>;
export type PresetCommandRequest = Request<AddPresetVersion> | Request<DesignateVersion>;

export interface CommandContext {
  requestId: string;
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

export class DecisionRejected extends Error {
  override readonly name = 'DecisionRejected';
  constructor(readonly reason: DecisionError) {
    super(reason.message);
  }
}

export interface PresetCommandDeps {
  eventStore: EventStore;
  newId?: () => string;
  clock?: () => Date;
}

export type PresetCommandHandler = (request: PresetCommandRequest, context: CommandContext) => Promise<CommandOutcome>;

export const createPresetCommandHandler = ({ eventStore, newId = randomUUID, clock = () => new Date() }: PresetCommandDeps): PresetCommandHandler =>
  async (request, context) => {
    const stream = presetStreamName(request.workspaceId, request.slug);
    const history = (await eventStore.read(stream)).map(decodeEvent);
    const state = history.reduce((s, stored) => evolve(s, stored.event), initialState());
    const current = history.length === 0 ? null : history[history.length - 1]!.revision;
    if (context.expectedRevision !== undefined && context.expectedRevision !== current) {
      throw new ConcurrencyConflict(stream, context.expectedRevision, current ?? 'no_stream');
    }
    const command: PresetCommand = request.type === 'AddPresetVersion'
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
    };
    const { revision, position } = await eventStore.append(
      stream,
      events.map((event) => toNewEvent(newId(), event, metadata)),
      current ?? 'no_stream',
    );
    return { events, state: events.reduce(evolve, state), revision, position };
  };
