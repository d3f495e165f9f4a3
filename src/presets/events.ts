import * as t from 'io-ts';
import { upcast } from './upcasters';

import type { StoredEvent } from '../events/envelope';
import { defineStreamType, eventRegistry } from '../events/registry';

export { CURRENT_SCHEMA_VERSION, EventMetadata, MalformedEvent, SOURCE_FORMATS, SourceFormat, toNewEvent } from '../events/envelope';

/**
 * The events of a preset's stream: the published event contract (the envelope they share with
 * every stream type is src/events/envelope.ts). Every read of the store decodes through these
 * codecs, so a malformed event is a loud error, never a silently wrong read model.
 */

const Config = t.record(t.string, t.unknown);
const versionFields = { id: t.string, number: t.number, config: Config, systemPrompt: t.string };

/**
 * How a version's text is read: `none`, as it is (what the inference-body endpoints store, as
 * OpenRouter does); `handlebars`, as templates filled in at resolve (docs/templates.md).
 */
export const TemplateFormat = t.keyof({ none: null, handlebars: null }, 'TemplateFormat');
export type TemplateFormat = t.TypeOf<typeof TemplateFormat>;
/** A message a templated version holds after its system prompt: text, from the user or the assistant. */
export const VersionMessage = t.type({ role: t.keyof({ user: null, assistant: null }), content: t.string }, 'VersionMessage');
export type VersionMessage = t.TypeOf<typeof VersionMessage>;
/** `variables`: the JSON Schema of the values its templates take, kept as sent; null when it takes none. */
const templateFields = { templateFormat: TemplateFormat, variables: t.union([Config, t.null]), messages: t.array(VersionMessage) };

/** At most this many characters (code points) in a note on a change. */
export const MAX_NOTE_CHARS = 1000;
/** Why a change was made, in the words of whoever made it; optional on every event that carries one. */
const withNote = t.partial({ note: t.string });
/** A change made by a proposal (release control) names it; absent on a direct one. */
const byProposal = t.partial({ proposalId: t.string });

export const VersionData = t.intersection([t.type({ ...versionFields, ...templateFields, creatorId: t.string }), withNote]);
export type VersionData = t.TypeOf<typeof VersionData>;

const presetCreatedOf = <V extends t.Mixed>(version: V) =>
  t.type({
    presetId: t.string,
    workspaceId: t.string,
    slug: t.string,
    name: t.string,
    creatorUserId: t.string,
    version,
    occurredAt: t.string,
  });
const presetVersionAddedOf = <V extends t.Mixed>(version: V) => t.type({ presetId: t.string, version, occurredAt: t.string });

export const PresetCreatedData = presetCreatedOf(VersionData);
/** `designated: false` when the designated version is protected, so the new version does not become it; absent: it does. */
const notDesignated = t.partial({ designated: t.literal(false) });
export const PresetVersionAddedData = t.intersection([presetVersionAddedOf(VersionData), notDesignated]);

const presetVersionDesignatedFields = {
  presetId: t.string,
  versionId: t.string,
  versionNumber: t.number,
  previousVersionNumber: t.number,
  occurredAt: t.string,
};
export const PresetVersionDesignatedData = t.intersection([t.type(presetVersionDesignatedFields), withNote, byProposal]);

/** A preset's status: `disabled` may not be used, `archived` is hidden and frozen until restored. */
export const PresetStatus = t.keyof({ active: null, disabled: null, archived: null });
export type PresetStatus = t.TypeOf<typeof PresetStatus>;

/** Only the details that changed are present. */
export const PresetDetailsChangedData = t.intersection([
  t.type({ presetId: t.string, occurredAt: t.string }),
  t.partial({ name: t.string, description: t.union([t.string, t.null]), note: t.string }),
]);

export const PresetStatusChangedData = t.intersection([
  t.type({ presetId: t.string, status: PresetStatus, previousStatus: PresetStatus, occurredAt: t.string }),
  withNote,
  byProposal,
]);

/** One version's share of a split label: a relative weight (the weights need not add up to 100). */
export const SplitShare = t.type({ versionNumber: t.number, versionId: t.string, weight: t.number });
export type SplitShare = t.TypeOf<typeof SplitShare>;

/**
 * A label is a named pointer to one version; `previousVersionNumber` is null when the label is new
 * or was split. Moving a split label to one version ends the split: `previousVersions` is that split.
 */
export const PresetLabelMovedData = t.intersection([
  t.type({
    presetId: t.string,
    label: t.string,
    versionNumber: t.number,
    versionId: t.string,
    previousVersionNumber: t.union([t.number, t.null]),
    occurredAt: t.string,
  }),
  t.partial({ previousVersions: t.array(SplitShare) }),
  withNote,
  byProposal,
]);

/**
 * A label split between 2–10 versions by weight (a rollout): resolving it picks one of them per
 * caller (src/resolve/split.ts). `versions` in ascending version order; the previous state is
 * the version the label named (`previousVersionNumber`) or the split it had (`previousVersions`),
 * both null when the label is new.
 */
export const PresetLabelSplitData = t.intersection([
  t.type({
    presetId: t.string,
    label: t.string,
    versions: t.array(SplitShare),
    previousVersionNumber: t.union([t.number, t.null]),
    previousVersions: t.union([t.array(SplitShare), t.null]),
    occurredAt: t.string,
  }),
  withNote,
]);

/** `versionNumber`: the version the label named when it was removed. */
export const PresetLabelRemovedData = t.intersection([
  t.type({ presetId: t.string, label: t.string, versionNumber: t.number, occurredAt: t.string }),
  withNote,
  byProposal,
]);

/**
 * Release control. A protection's or a proposal's `label` is null for the designated version,
 * which follows the same rules as a label. `approvals`: how many users other than the proposer
 * must approve a move before it happens (0: a key with presets:release moves it at once).
 */
const Target = t.union([t.string, t.null]);
export const PresetLabelProtectedData = t.intersection([
  t.type({ presetId: t.string, label: Target, protected: t.boolean, approvals: t.number, occurredAt: t.string }),
  withNote,
  byProposal,
]);
/**
 * Who else a proposer or an approver counts as: the users up the chain of makers of their key
 * (src/keys/keyRing.ts), nearest first. Absent on events made before it was recorded, and for keys
 * of the keys file: none.
 */
const proposerMakers = t.partial({ proposerMakers: t.array(t.string) });
/** `previousVersionNumber`: what the label (or the designation) named when proposed; approving it later than a change of that is refused. */
export const LabelMoveProposedData = t.intersection([
  t.type({
    presetId: t.string,
    proposalId: t.string,
    label: Target,
    versionNumber: t.number,
    versionId: t.string,
    previousVersionNumber: t.union([t.number, t.null]),
    proposerUserId: t.string,
    approvalsRequired: t.number,
    occurredAt: t.string,
  }),
  withNote,
  proposerMakers,
]);
/**
 * The other changes of a target protected with approvals, which wait for approvals as a move does:
 * removing the label, lowering or lifting its protection, and changing the preset's status (which
 * makes every protected label unusable, or usable again). `label` is null for the designation, and
 * for a status change (the preset's). Applied by the ordinary event of the change, naming the proposal.
 */
export const ProposedChange = t.union([
  t.type({ kind: t.literal('remove_label'), versionNumber: t.number }),
  t.type({ kind: t.literal('protect'), protected: t.boolean, approvals: t.number, previousApprovals: t.union([t.number, t.null]) }),
  t.type({ kind: t.literal('status'), status: PresetStatus, previousStatus: PresetStatus }),
]);
export type ProposedChange = t.TypeOf<typeof ProposedChange>;
export const PresetChangeProposedData = t.intersection([
  t.type({
    presetId: t.string,
    proposalId: t.string,
    label: Target,
    change: ProposedChange,
    proposerUserId: t.string,
    approvalsRequired: t.number,
    occurredAt: t.string,
  }),
  withNote,
  proposerMakers,
]);
const proposalStep = t.intersection([t.type({ presetId: t.string, proposalId: t.string, occurredAt: t.string }), withNote]);
/** An approval of any proposal (a move's, or another change's: PresetChangeProposed), by a user other than its proposer. */
export const LabelMoveApprovedData = t.intersection([
  t.type({ presetId: t.string, proposalId: t.string, approverUserId: t.string, occurredAt: t.string }),
  withNote,
  t.partial({ approverMakers: t.array(t.string) }),
]);
export const LabelMoveRejectedData = proposalStep;
export const LabelMoveWithdrawnData = proposalStep;

export type PresetCreated = { type: 'PresetCreated'; data: t.TypeOf<typeof PresetCreatedData> };
export type PresetVersionAdded = { type: 'PresetVersionAdded'; data: t.TypeOf<typeof PresetVersionAddedData> };
export type PresetVersionDesignated = { type: 'PresetVersionDesignated'; data: t.TypeOf<typeof PresetVersionDesignatedData> };
export type PresetDetailsChanged = { type: 'PresetDetailsChanged'; data: t.TypeOf<typeof PresetDetailsChangedData> };
export type PresetStatusChanged = { type: 'PresetStatusChanged'; data: t.TypeOf<typeof PresetStatusChangedData> };
export type PresetLabelMoved = { type: 'PresetLabelMoved'; data: t.TypeOf<typeof PresetLabelMovedData> };
export type PresetLabelRemoved = { type: 'PresetLabelRemoved'; data: t.TypeOf<typeof PresetLabelRemovedData> };
export type PresetLabelSplit = { type: 'PresetLabelSplit'; data: t.TypeOf<typeof PresetLabelSplitData> };
export type PresetLabelProtected = { type: 'PresetLabelProtected'; data: t.TypeOf<typeof PresetLabelProtectedData> };
export type LabelMoveProposed = { type: 'LabelMoveProposed'; data: t.TypeOf<typeof LabelMoveProposedData> };
export type LabelMoveApproved = { type: 'LabelMoveApproved'; data: t.TypeOf<typeof LabelMoveApprovedData> };
export type LabelMoveRejected = { type: 'LabelMoveRejected'; data: t.TypeOf<typeof LabelMoveRejectedData> };
export type LabelMoveWithdrawn = { type: 'LabelMoveWithdrawn'; data: t.TypeOf<typeof LabelMoveWithdrawnData> };
export type PresetChangeProposed = { type: 'PresetChangeProposed'; data: t.TypeOf<typeof PresetChangeProposedData> };
export type PresetEvent =
  | PresetCreated
  | PresetVersionAdded
  | PresetVersionDesignated
  | PresetDetailsChanged
  | PresetStatusChanged
  | PresetLabelMoved
  | PresetLabelRemoved
  | PresetLabelSplit
  | PresetLabelProtected
  | LabelMoveProposed
  | LabelMoveApproved
  | LabelMoveRejected
  | LabelMoveWithdrawn
  | PresetChangeProposed;
export type PresetEventType = PresetEvent['type'];

export const presetEventDataCodecs = {
  PresetCreated: PresetCreatedData,
  PresetVersionAdded: PresetVersionAddedData,
  PresetVersionDesignated: PresetVersionDesignatedData,
  PresetDetailsChanged: PresetDetailsChangedData,
  PresetStatusChanged: PresetStatusChangedData,
  PresetLabelMoved: PresetLabelMovedData,
  PresetLabelRemoved: PresetLabelRemovedData,
  PresetLabelSplit: PresetLabelSplitData,
  PresetLabelProtected: PresetLabelProtectedData,
  LabelMoveProposed: LabelMoveProposedData,
  LabelMoveApproved: LabelMoveApprovedData,
  LabelMoveRejected: LabelMoveRejectedData,
  LabelMoveWithdrawn: LabelMoveWithdrawnData,
  PresetChangeProposed: PresetChangeProposedData,
} as const satisfies Record<PresetEventType, t.Mixed>;

/** Every preset event type, in the order they were introduced. */
export const PRESET_EVENT_TYPES = Object.keys(presetEventDataCodecs) as PresetEventType[];

/**
 * Schema version 1, only for the published `*.v1.json` schemas: decoding upcasts instead.
 * `creatorId` is optional, not absent: events stored as v1 by later v1 code already carry it.
 */
const VersionDataV1 = t.intersection([t.type(versionFields), t.partial({ creatorId: t.string })]);
/** Schema version 2's version: no template fields. */
const VersionDataV2 = t.intersection([t.type({ ...versionFields, creatorId: t.string }), withNote]);
/** The preset event types schema version 2 had (all but PresetChangeProposed). */
const { PresetChangeProposed: _since3, ...v2Codecs } = presetEventDataCodecs;

/** The preset stream type, as it registers into the log's table (src/events/registry.ts). */
export const presetStreamType = defineStreamType<PresetEvent>({
  name: 'presets',
  codecs: presetEventDataCodecs,
  olderCodecs: {
    1: {
      PresetCreated: presetCreatedOf(VersionDataV1),
      PresetVersionAdded: presetVersionAddedOf(VersionDataV1),
      PresetVersionDesignated: t.type(presetVersionDesignatedFields),
    },
    2: {
      ...v2Codecs,
      PresetCreated: presetCreatedOf(VersionDataV2),
      PresetVersionAdded: t.intersection([presetVersionAddedOf(VersionDataV2), notDesignated]),
    },
  },
  upcast,
});

/** Decodes the events of a preset's stream (src/events/registry.ts). */
export const presetEvents = eventRegistry<PresetEvent>(presetStreamType);
export const decodePresetEvent = presetEvents.decode;

/** An event of a preset's stream as read back. */
export type StoredPresetEvent = StoredEvent<PresetEvent>;
