import type { EventStore } from '../eventstore/eventStore';
import { handleCommand, type HandledCommand } from '../eventstore/commandHandler';
import { foldFromStore, type StreamStates } from '../eventstore/states';
import { presetDecider, type PresetCommand, type PresetState } from './decider';
import { eventMetadata, toNewEvent } from '../events/envelope';
import { decodePresetEvent as decodeEvent, type PresetEvent } from './events';
import { presetStreamName } from './streamName';
import { newId as timeOrderedId } from '../ids';

export { CommandRejected, PreconditionFailed } from '../eventstore/commandHandler';

/**
 * The preset's side of the one command handler (src/eventstore/commandHandler.ts): what is
 * preset-specific is only the stream name, what the handler chooses for a command (the clock and
 * the ids, into its metadata), and the client's If-Match (a stale one is a 412). The events'
 * metadata is built from the command's by the one builder, `eventMetadata` (src/events/envelope.ts).
 */

/** What the handler chooses for a command, so its callers leave it out of the metadata. */
type Chosen = 'now' | 'newPresetId' | 'newVersionId' | 'newProposalId';

/** A preset command as its caller asks for it: `{ type, data, metadata }`, the metadata without what the handler chooses. */
export type PresetCommandRequest = PresetCommand extends infer C
  ? C extends PresetCommand
    ? { type: C['type']; data: C['data']; metadata: Omit<C['metadata'], Chosen> }
    : never
  : never;

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

export interface PresetCommandOptions {
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

export type PresetCommandHandler = (request: PresetCommandRequest, options?: PresetCommandOptions) => Promise<CommandOutcome>;

export const createPresetCommandHandler = ({
  eventStore,
  states = presetStates(eventStore),
  newId = timeOrderedId,
  clock = () => new Date(),
}: PresetCommandDeps): PresetCommandHandler => {
  return async ({ type, data, metadata }, options = {}) => {
    const command = {
      type,
      data,
      metadata: {
        ...metadata,
        now: clock(),
        ...(type === 'AddPresetVersion' ? { newPresetId: newId(), newVersionId: newId() } : {}),
        ...(MAY_PROPOSE.has(type) ? { newProposalId: newId() } : {}),
      },
    } as PresetCommand;
    const stored = eventMetadata(command.metadata);
    return handleCommand(
      { eventStore, states, decider: presetDecider, toNewEvent: (event) => toNewEvent(newId(), event, stored) },
      presetStreamName(data.workspaceId, data.slug),
      command,
      { expectedRevision: options.expectedRevision },
    );
  };
};
