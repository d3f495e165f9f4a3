import type * as E from 'fp-ts/Either';
import type { Rejection } from '../eventstore/commandHandler';
import type { CommandMetadata } from '../events/envelope';
import type { PresetEvent, PresetStatus, TemplateFormat, VersionMessage } from './events';

/**
 * The commands a preset's decider (./decider.ts) takes, and what it answers: events or a rejection.
 * A command is `{ type, data, metadata }`, as the keys' are (src/keys/decider.ts): `data` is what is
 * asked, `metadata` who asks and when, and what the handler (./handler.ts) chose for it.
 */

/** What every preset command's data names: the preset, and why. */
export interface PresetCommandTarget {
  workspaceId: string;
  slug: string;
  /** Why, in the actor's words; stored on the events the command makes. */
  note?: string;
}

/**
 * Who asks and when (the envelope's `CommandMetadata`, from which the events' metadata is built by
 * `eventMetadata`), what release control knows of the actor, and the ids the handler chose.
 */
export interface PresetCommandMetadata extends CommandMetadata {
  /** Whether the actor's key holds presets:release: only such a key may change what is protected. */
  mayRelease?: boolean;
  /**
   * The users up the chain of makers of the actor's key (src/keys/keyRing.ts), nearest first: in
   * release control the actor counts as each of them too. Absent: none (a key of the keys file).
   */
  actorMakers?: readonly string[];
  /** The id a proposal gets if the change needs approvals (the handler chooses it). */
  newProposalId?: string;
}

/** A preset command: its type, what it asks (the preset and the command's own fields) and its metadata. */
export interface PresetCommandOf<Type extends string, Data = object, Metadata extends PresetCommandMetadata = PresetCommandMetadata> {
  type: Type;
  data: PresetCommandTarget & Data;
  metadata: Metadata;
}

/** Add a version to the preset named by workspace and slug, creating the preset if it is absent. */
export type AddPresetVersion = PresetCommandOf<
  'AddPresetVersion',
  {
    config: Record<string, unknown>;
    systemPrompt: string;
    /** How the version's text is read (absent: "none"), the schema of its variables (absent: null) and its messages (absent: none): checked by the caller (src/templates/). */
    templateFormat?: TemplateFormat;
    variables?: Record<string, unknown> | null;
    messages?: VersionMessage[];
  },
  /** The ids the preset (if it is new) and the version get, chosen by the handler. */
  PresetCommandMetadata & { newPresetId: string; newVersionId: string }
>;

/** Make an existing version the designated one (a rollback, or a roll forward). */
export type DesignateVersion = PresetCommandOf<'DesignateVersion', { version: number }>;

/** Change any of the preset's name, description and status; what is already so changes nothing. */
export type ChangePreset = PresetCommandOf<'ChangePreset', { name?: string; description?: string | null; status?: PresetStatus }>;

/** OpenRouter's delete: archive; an archived preset stays so, a disabled one is refused. */
export type ArchivePreset = PresetCommandOf<'ArchivePreset'>;

/** OpenRouter's restore: archived → active; an active preset stays so, a disabled one is refused. */
export type RestorePreset = PresetCommandOf<'RestorePreset'>;

/** Point a label at a version, creating the label if it is new. */
export type MoveLabel = PresetCommandOf<'MoveLabel', { label: string; version: number }>;

export type RemoveLabel = PresetCommandOf<'RemoveLabel', { label: string }>;

/** Split a label between 2–10 distinct versions by weight (a rollout), creating it if it is new. */
export type SplitLabel = PresetCommandOf<
  'SplitLabel',
  {
    label: string;
    /** Versions and their relative weights, in any order (checked by the route: distinct, integer weights 1–10,000). */
    split: { version: number; weight: number }[];
  }
>;

/** Protect (or unprotect) a label, or the designation when `label` is null. */
export type ProtectLabel = PresetCommandOf<'ProtectLabel', { label: string | null; protected: boolean; approvals: number }>;

export type DecideProposal = PresetCommandOf<'ApproveProposal' | 'RejectProposal' | 'WithdrawProposal', { proposalId: string }>;

export type PresetCommand =
  | AddPresetVersion
  | DesignateVersion
  | ChangePreset
  | ArchivePreset
  | RestorePreset
  | MoveLabel
  | RemoveLabel
  | SplitLabel
  | ProtectLabel
  | DecideProposal;

/** Every rejection has a kind, which the error middleware maps to a status (commandHandler.ts). */
export type DecisionError = Rejection & {
  type:
    | 'PresetNotFound'
    | 'VersionNotFound'
    | 'LabelNotFound'
    | 'ProposalNotFound'
    /** A split label is ended by moving it to one version, not removed. */
    | 'LabelSplit'
    /** A label protected with approvals is not split: its changes go through proposals, which name one version. */
    | 'ProtectedSplit'
    /** An archived preset takes no new version, label change or designation until it is restored. */
    | 'PresetArchived'
    /** A disabled preset is neither archived nor restored (OpenRouter answers 409). */
    | 'PresetDisabled'
    /** A protected label (or designation) changed by a key without presets:release, or a proposal decided by the wrong user. */
    | 'Protected'
    /** The proposal was closed, or its label moved since it was made. */
    | 'ProposalClosed'
    | 'PresetInconsistent';
};

export type Decision = E.Either<DecisionError, PresetEvent[]>;
