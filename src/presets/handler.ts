import type { EventStore } from '../eventstore/eventStore';
import { handleCommand, type HandledCommand } from '../eventstore/commandHandler';
import { foldFromStore, type StreamStates } from '../eventstore/states';
import {
  presetDecider,
  type AddPresetVersion,
  type ArchivePreset,
  type ChangePreset,
  type DecideProposal,
  type DesignateVersion,
  type MoveLabel,
  type PresetCommand,
  type PresetState,
  type ProtectLabel,
  type RemoveLabel,
  type RestorePreset,
  type SplitLabel,
} from './decider';
import {
  CURRENT_SCHEMA_VERSION,
  decodePresetEvent as decodeEvent,
  toNewEvent,
  type EventMetadata,
  type PresetEvent,
  type SourceFormat,
} from './events';
import { presetStreamName } from './streamName';
import { newId as timeOrderedId } from '../ids';

export { CommandRejected, PreconditionFailed } from '../eventstore/commandHandler';

/**
 * The preset's side of the one command handler (src/eventstore/commandHandler.ts): what is
 * preset-specific is only the stream name, the ids and the clock it gives a command, the metadata
 * its events carry, and the client's If-Match (a stale one is a 412).
 */
type Request<C> = Omit<C, 'now' | 'newPresetId' | 'newVersionId' | 'newProposalId'>;
export type PresetCommandRequest =
  | Request<AddPresetVersion>
  | Request<DesignateVersion>
  | Request<ChangePreset>
  | Request<ArchivePreset>
  | Request<RestorePreset>
  | Request<MoveLabel>
  | Request<RemoveLabel>
  | Request<SplitLabel>
  | Request<ProtectLabel>
  | Request<DecideProposal>;

/** The commands that may become a proposal: each change of what is protected with approvals (src/presets/proposals.ts). */
const MAY_PROPOSE = new Set<PresetCommand['type']>([
  'DesignateVersion',
  'MoveLabel',
  'RemoveLabel',
  'ProtectLabel',
  'ChangePreset',
  'ArchivePreset',
  'RestorePreset',
]);

export interface CommandContext {
  requestId: string;
  /** The API key that made the request (its id, never the key): the audit report's key column. */
  keyId?: string;
  /** Set when the command comes from an inference request body. */
  sourceFormat?: SourceFormat;
  /** The stream revision the client saw (If-Match); a different current revision is a conflict. */
  expectedRevision?: bigint;
}

export type CommandOutcome = HandledCommand<PresetState, PresetEvent>;

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
  newId = timeOrderedId,
  clock = () => new Date(),
}: PresetCommandDeps): PresetCommandHandler => {
  return async (request, context) => {
    const command = {
      ...request,
      now: clock(),
      ...(request.type === 'AddPresetVersion' ? { newPresetId: newId(), newVersionId: newId() } : {}),
      ...(MAY_PROPOSE.has(request.type) ? { newProposalId: newId() } : {}),
    } as PresetCommand;
    const metadata: EventMetadata = {
      requestId: context.requestId,
      actorUserId: request.actorUserId,
      schemaVersion: CURRENT_SCHEMA_VERSION,
      ...(context.sourceFormat ? { sourceFormat: context.sourceFormat } : {}),
      ...(context.keyId ? { keyId: context.keyId } : {}),
    };
    return handleCommand(
      { eventStore, states, decider: presetDecider, toNewEvent: (event) => toNewEvent(newId(), event, metadata) },
      presetStreamName(request.workspaceId, request.slug),
      command,
      { expectedRevision: context.expectedRevision },
    );
  };
};
