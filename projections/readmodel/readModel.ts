import * as t from 'io-ts';
import { integer, refine } from '../../src/formats/codecs';
import { PresetStatus, SourceFormat, TemplateFormat, VersionMessage } from '../../src/presets/events';

/**
 * The read model: preset documents shaped as the API answers them, and their versions.
 * Two implementations: `sqlite.ts` (embedded default) and `mongodb.ts`.
 *
 * Every write is idempotent: a document keeps the stream revision it reflects and is only
 * replaced by one of a higher revision, and a version is only inserted when absent. So replaying
 * events the read model already holds (after a crash between a write and its checkpoint) changes nothing.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const uuid = refine(t.string, (s) => UUID.test(s), 'UUID', { format: 'uuid' });
const timestamp = refine(t.string, (s) => ISO_TIMESTAMP.test(s), 'ISO 8601 timestamp (UTC)', { format: 'date-time' });

/**
 * A preset version as the API shows it (`designated_version`, the versions list). The codec is
 * the one description of the shape: the TypeScript type and the OpenAPI schema derive from it.
 */
export const VersionView = t.type(
  {
    id: uuid,
    preset_id: uuid,
    version: integer,
    config: t.record(t.string, t.unknown),
    system_prompt: t.string,
    /**
     * How the system prompt and messages are read: "none", as they are (a `{{x}}` stays literal);
     * "handlebars", as templates filled in at resolve from the request's variables (docs/templates.md).
     */
    template_format: TemplateFormat,
    /** The JSON Schema (draft 2020-12) of the variables a templated version takes, as sent; null when it takes none. */
    variables: t.union([t.record(t.string, t.unknown), t.null]),
    /** Messages after the system prompt (few-shot examples, a user turn), text only; templates too in a templated version. */
    messages: t.array(VersionMessage),
    /** Why the version was made, in its creator's words; null when none was given. */
    note: t.union([t.string, t.null]),
    /**
     * The request format the version was made from: its config keeps that format's field names, and
     * resolving it for another format translates them. Null when its event did not record one.
     */
    source_format: t.union([SourceFormat, t.null]),
    creator_id: t.string,
    created_at: timestamp,
    updated_at: timestamp,
  },
  'PresetVersion',
);
export type VersionView = t.TypeOf<typeof VersionView>;

/** A split label as the API shows it: the versions it is split between, with their relative weights, ascending by version. */
export const LabelSplitView = t.type({ split: t.array(t.type({ version: integer, weight: integer }, 'SplitShare')) }, 'LabelSplit');
export type LabelSplitView = t.TypeOf<typeof LabelSplitView>;
/** What a label names: one version, or a split between versions. */
export const LabelView = t.union([integer, LabelSplitView]);
export type LabelView = t.TypeOf<typeof LabelView>;

/**
 * A change of a target protected with approvals that waits for them: a move of a label (`label`
 * null: the designated version), or (`change`) a label's removal, a lower or lifted protection, or a
 * change of the preset's status. `version` is a move's version (null for the other changes);
 * `previous_version` what the label or designation names now. Documents projected before `change`
 * existed hold moves only.
 */
export const ProposalView = t.intersection(
  [
    t.type({
      id: uuid,
      label: t.union([t.string, t.null]),
      version: t.union([integer, t.null]),
      previous_version: t.union([integer, t.null]),
      proposer_user_id: t.string,
      approvals_required: integer,
      approved_by: t.array(t.string),
      created_at: timestamp,
    }),
    t.partial({
      change: t.keyof({ move: null, remove_label: null, protect: null, status: null }),
      /** A `protect` change: the protection proposed. */
      protection: t.union([t.type({ approvals: integer }, 'Protection'), t.null]),
      /** A `status` change: the status proposed. */
      new_status: PresetStatus,
    }),
  ],
  'Proposal',
);
export type ProposalView = t.TypeOf<typeof ProposalView>;
const Protection = t.type({ approvals: integer }, 'Protection');

/** Release control, on documents that have any (docs/keys-and-release.md). */
const ReleaseFields = t.partial({
  /** Protected label → the approvals a move needs. */
  protected_labels: t.record(t.string, Protection),
  /** The designated version's protection; null: not protected. */
  designation_protection: t.union([Protection, t.null]),
  /** Open proposals, oldest first. */
  proposals: t.array(ProposalView),
});

const PresetFields = t.type(
  {
    id: uuid,
    name: t.string,
    slug: t.string,
    description: t.union([t.string, t.null]),
    status: PresetStatus,
    /** When the status last changed; null until it does. */
    status_updated_at: t.union([timestamp, t.null]),
    created_at: timestamp,
    updated_at: timestamp,
    creator_user_id: t.string,
    workspace_id: uuid,
    /** Label → version number, or `{"split": [...]}` for a split label (an empty object when none). */
    labels: t.record(t.string, LabelView),
    designated_version_id: uuid,
    designated_version: VersionView,
  },
  'PresetFields',
);
/** A preset as the API shows it, with its designated version. */
export const PresetView = t.intersection([PresetFields, ReleaseFields], 'Preset');
export type PresetView = t.TypeOf<typeof PresetView>;

/** A preset document and the revision of its stream that it reflects. */
export interface PresetRecord {
  view: PresetView;
  revision: bigint;
}

/**
 * A preset document serialized once, as the API sends it: reads and write answers pass the JSON
 * through instead of parsing and serializing it again on every request (documentJson.ts makes it).
 */
export interface PresetJson {
  workspaceId: string;
  slug: string;
  revision: bigint;
  json: string;
}

/**
 * What a projector announces once a batch is in the read model: the position it reached and the
 * preset documents it wrote, as stored. Caches and read-your-writes waiters of the process listen.
 */
export type ProjectedEvents = { projected: [position: bigint, documents: PresetJson[]] };

/** Where those announcements are heard (a projector's emitter, whatever else it emits). */
export interface Announcements {
  on(event: 'projected', listener: (...args: ProjectedEvents['projected']) => void): unknown;
}

export type ProjectionChange =
  /** Replace the preset document if the stored one reflects a lower revision (or there is none). */
  | { kind: 'putPreset'; record: PresetRecord }
  /** Insert the version if the preset has no version of that number yet. */
  | { kind: 'putVersion'; version: VersionView };

export interface Checkpoint {
  /** The projector's name; one read model can hold several checkpoints. */
  name: string;
  /** Position of the last event whose changes are in the read model. */
  position: bigint;
}

export interface Page {
  offset: number;
  limit: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
}

/** The projector's side: writes, and where it got to. */
export interface ReadModelWriter {
  /**
   * Writes the changes and moves the checkpoint, in one transaction where the store allows. Without
   * a checkpoint it stays where it is: a rebuild's stream-by-stream load, whose writes do not end
   * at one position until it is done.
   */
  apply(changes: ProjectionChange[], checkpoint?: Checkpoint): Promise<void>;
  checkpoint(name: string): Promise<bigint | null>;
}

/** The side the API reads, always within one workspace. */
export interface ReadModelQueries {
  getPreset(workspaceId: string, slug: string): Promise<PresetRecord | null>;
  /** The same document, serialized. */
  getPresetJson(workspaceId: string, slug: string): Promise<PresetJson | null>;
  /**
   * Most recently updated first; only the presets of these statuses when given, and only those
   * whose slug or name contains `search` (ignoring case: see `foldCase`) when given.
   */
  listPresets(workspaceId: string, page: Page, statuses?: readonly PresetStatus[], search?: string): Promise<PageOf<PresetView>>;
  getVersion(presetId: string, version: number): Promise<VersionView | null>;
  /** The version of the highest number (what `@latest` names), or null when the preset has none. */
  getLatestVersion(presetId: string): Promise<VersionView | null>;
  /** Ascending by version number. */
  listVersions(presetId: string, page: Page): Promise<PageOf<VersionView>>;
  /**
   * The same versions, serialized (ascending by number): what verify compares as text first, so a
   * version stored exactly as the events make it is not parsed again.
   */
  listVersionsJson(presetId: string, page: Page): Promise<VersionJson[]>;
}

export interface VersionJson {
  version: number;
  json: string;
}

export interface ReadModel extends ReadModelWriter, ReadModelQueries {
  close(): Promise<void>;
}

/** How every read model compares a search with a slug or a name: both lower-cased (Unicode). */
export const foldCase = (text: string): string => text.toLowerCase();
