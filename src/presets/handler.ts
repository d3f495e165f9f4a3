import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/Either';
import { LRUCache } from 'lru-cache';
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

export interface PresetCommandDeps {
  eventStore: EventStore;
  newId?: () => string;
  clock?: () => Date;
  /** How many presets' folded state to keep between commands (0: fold the whole stream every time). */
  stateCacheSize?: number;
  /** Told after every append (a projector in another thread looks for the new events at once). */
  onAppended?: () => void;
}

interface Folded { state: PresetState; revision: bigint }

export type PresetCommandHandler = (request: PresetCommandRequest, context: CommandContext) => Promise<CommandOutcome>;

export const createPresetCommandHandler = ({ eventStore, newId = randomUUID, clock = () => new Date(), stateCacheSize = 10_000, onAppended }: PresetCommandDeps): PresetCommandHandler => {
  // The folded state of recently used presets, with the revision it reflects: a command reads only
  // the events after it (usually none), so a preset with many versions costs no more than a new one.
  // Always read forward from the cached revision, so another process's writes are never missed.
  const cache = stateCacheSize > 0 ? new LRUCache<string, Folded>({ max: stateCacheSize }) : null;
  return async (request, context) => {
    const stream = presetStreamName(request.workspaceId, request.slug);
    const cached = cache?.get(stream);
    const newer = (await eventStore.read(stream, { fromRevision: cached ? cached.revision + 1n : 0n })).map(decodeEvent);
    const state = newer.reduce((s, stored) => evolve(s, stored.event), cached?.state ?? initialState());
    const current = newer.length > 0 ? newer[newer.length - 1]!.revision : cached?.revision ?? null;
    if (current !== null) cache?.set(stream, { state, revision: current });
    if (context.expectedRevision !== undefined && context.expectedRevision !== current) {
      throw new PreconditionFailed(stream, context.expectedRevision, current ?? 'no_stream');
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
    ).catch((error: unknown) => {
      // With If-Match the append's expected revision is the client's: losing the race means the
      // precondition is false now, and retrying the same request could only fail again.
      if (context.expectedRevision === undefined || !(error instanceof ConcurrencyConflict)) throw error;
      throw new PreconditionFailed(stream, context.expectedRevision, error.actual);
    });
    onAppended?.();
    const after = events.reduce(evolve, state);
    cache?.set(stream, { state: after, revision });
    return { events, state: after, revision, position };
  };
};
