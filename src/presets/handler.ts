import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/Either';
import type { EventStore } from '../eventstore/eventStore';
import { decide, evolve, initialState, type AddPresetVersion } from './decider';
import { CURRENT_SCHEMA_VERSION, decodeEvent, toNewEvent, type PresetEvent, type SourceFormat } from './events';
import { presetStreamName } from './streamName';

/**
 * The command handler: read the preset's stream, fold it, decide, append with optimistic
 * concurrency. A stream that moved on between the read and the append makes the store throw
 * ConcurrencyConflict (a 409): the version is neither lost nor doubled, the client may retry.
 */
export interface AddVersionRequest {
  workspaceId: string;
  slug: string;
  actorUserId: string;
  requestId: string;
  sourceFormat: SourceFormat;
  config: Record<string, unknown>;
  systemPrompt: string;
}

export interface AddVersionOutcome {
  event: PresetEvent;
  /** Stream revision of the appended event (0n for a creation). */
  revision: bigint;
  position: bigint;
}

export interface PresetCommandDeps {
  eventStore: EventStore;
  newId?: () => string;
  clock?: () => Date;
}

export class DecisionRejected extends Error {
  override readonly name = 'DecisionRejected';
}

export const createAddVersionHandler = ({ eventStore, newId = randomUUID, clock = () => new Date() }: PresetCommandDeps) =>
  async (request: AddVersionRequest): Promise<AddVersionOutcome> => {
    const stream = presetStreamName(request.workspaceId, request.slug);
    const history = (await eventStore.read(stream)).map(decodeEvent);
    const state = history.reduce((s, stored) => evolve(s, stored.event), initialState());
    const command: AddPresetVersion = {
      type: 'AddPresetVersion',
      workspaceId: request.workspaceId,
      slug: request.slug,
      actorUserId: request.actorUserId,
      sourceFormat: request.sourceFormat,
      config: request.config,
      systemPrompt: request.systemPrompt,
      newPresetId: newId(),
      newVersionId: newId(),
      now: clock(),
    };
    const decision = decide(command, state);
    if (E.isLeft(decision)) throw new DecisionRejected(decision.left.message);
    const event = decision.right;
    const expected = history.length === 0 ? 'no_stream' : history[history.length - 1]!.revision;
    const metadata = {
      requestId: request.requestId,
      actorUserId: request.actorUserId,
      sourceFormat: request.sourceFormat,
      schemaVersion: CURRENT_SCHEMA_VERSION,
    };
    const { revision, position } = await eventStore.append(stream, [toNewEvent(newId(), event, metadata)], expected);
    return { event, revision, position };
  };
