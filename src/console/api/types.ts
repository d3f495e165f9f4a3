/**
 * The answers of the public API as the console reads them (README, "API"). The console is a
 * client like any other: it knows the API by its documented shapes, not by the service's code.
 */
export type PresetStatus = 'active' | 'disabled' | 'archived';

export interface Version {
  id: string;
  preset_id: string;
  version: number;
  config: Record<string, unknown>;
  system_prompt: string;
  note: string | null;
  creator_id: string;
  created_at: string;
  updated_at: string;
}

export interface Preset {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  status: PresetStatus;
  status_updated_at: string | null;
  created_at: string;
  updated_at: string;
  creator_user_id: string;
  workspace_id: string;
  /** A label names one version, or is split between versions (a rollout). */
  labels: Record<string, LabelTarget>;
  designated_version_id: string;
  designated_version: Version;
  /** Release control (docs/keys-and-release.md): absent on a preset that never had any. */
  protected_labels?: Record<string, { approvals: number }>;
  designation_protection?: { approvals: number } | null;
  proposals?: Proposal[];
}

/** One version's relative weight in a split label. */
export interface SplitShare {
  version: number;
  weight: number;
}
export type LabelTarget = number | { split: SplitShare[] };

/** GET /api/v1/presets/{slug}/usage: resolutions answered per hour, label and version, with totals. */
export interface Usage {
  from: string;
  to: string;
  hours: Array<{ hour: string; label: string | null; version: number; count: number }>;
  totals: Array<{ label: string | null; version: number; count: number }>;
}

/** A change of a protected label (`label` null: the designated version) or of the preset's status, waiting for approvals. */
export interface Proposal {
  id: string;
  label: string | null;
  /** A move's version; null for the other changes. */
  version: number | null;
  previous_version: number | null;
  /** Absent on proposals made before other changes were: a move. */
  change?: 'move' | 'remove_label' | 'protect' | 'status';
  protection?: { approvals: number } | null;
  new_status?: string;
  proposer_user_id: string;
  approvals_required: number;
  approved_by: string[];
  created_at: string;
}

/** A key made through the API, as GET /api/v1/keys lists it (never the key itself). */
export interface ApiKey {
  id: string;
  name: string | null;
  user_id: string;
  scopes: string[];
  workspaces: string[];
  created_at: string;
  created_by: string;
  created_by_key_id: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** GET /api/v1/me: who the signed-in key is. */
export interface Me {
  user_id: string;
  workspace_id: string;
  workspaces: string[];
  scopes: string[];
  key_id: string | null;
}

/** The scopes a key can hold (the service's list: src/keys/scopes.ts). */
export const SCOPES = ['presets:read', 'presets:write', 'webhooks:manage', 'events:consume', 'keys:manage', 'presets:release'] as const;

export interface ListPage<T> {
  data: T[];
  total_count: number;
}

export type SourceFormat = 'chat_completions' | 'messages' | 'responses';

/** One stored event, as /api/v1/events and /api/v1/presets/{slug}/events show it: the service declares it once for its clients. */
export type { ApiEvent as PresetEvent, ApiEventMetadata as EventMetadata } from '../../apiTypes/event';

export interface DryRun {
  config: Record<string, unknown>;
  system_prompt: string;
  source_format: SourceFormat;
  note: string | null;
}

/** The event types of the published contract (docs/events.md), for the events page's filter. */
export const EVENT_TYPES = [
  'PresetCreated',
  'PresetVersionAdded',
  'PresetVersionDesignated',
  'PresetDetailsChanged',
  'PresetStatusChanged',
  'PresetLabelMoved',
  'PresetLabelRemoved',
  'PresetLabelSplit',
  'PresetLabelProtected',
  'LabelMoveProposed',
  'LabelMoveApproved',
  'LabelMoveRejected',
  'LabelMoveWithdrawn',
  'ApiKeyCreated',
  'ApiKeyRevoked',
  'PresetChangeProposed',
] as const;

/** The three create-or-version routes, by the request format each takes. */
export const FORMATS: ReadonlyArray<{ format: SourceFormat; path: string; label: string }> = [
  { format: 'chat_completions', path: 'chat/completions', label: 'OpenAI chat completions' },
  { format: 'messages', path: 'messages', label: 'Anthropic messages' },
  { format: 'responses', path: 'responses', label: 'OpenAI responses' },
];
