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
  labels: Record<string, number>;
  designated_version_id: string;
  designated_version: Version;
  /** Release control (docs/keys-and-release.md): absent on a preset that never had any. */
  protected_labels?: Record<string, { approvals: number }>;
  designation_protection?: { approvals: number } | null;
  proposals?: Proposal[];
}

/** A move of a protected label (`label` null: the designated version) waiting for approvals. */
export interface Proposal {
  id: string;
  label: string | null;
  version: number;
  previous_version: number | null;
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

/** The scopes a key can hold. */
export const SCOPES = ['presets:read', 'presets:write', 'presets:release', 'webhooks:manage', 'keys:manage'] as const;

export interface ListPage<T> {
  data: T[];
  total_count: number;
}

export type SourceFormat = 'chat_completions' | 'messages' | 'responses';

export interface EventMetadata {
  requestId: string;
  actorUserId: string;
  schemaVersion: number;
  sourceFormat?: SourceFormat;
}

/** One stored event, as /api/v1/events and /api/v1/presets/{slug}/events show it. */
export interface PresetEvent {
  id: string;
  type: string;
  stream: string;
  revision: number;
  /** A decimal string: positions can exceed 2^53. */
  position: string;
  recorded_at: string;
  data: Record<string, unknown> & { presetId: string; occurredAt: string };
  metadata: EventMetadata;
}

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
  'PresetLabelProtected',
  'LabelMoveProposed',
  'LabelMoveApproved',
  'LabelMoveRejected',
  'LabelMoveWithdrawn',
  'ApiKeyCreated',
  'ApiKeyRevoked',
] as const;

/** The three create-or-version routes, by the request format each takes. */
export const FORMATS: ReadonlyArray<{ format: SourceFormat; path: string; label: string }> = [
  { format: 'chat_completions', path: 'chat/completions', label: 'OpenAI chat completions' },
  { format: 'messages', path: 'messages', label: 'Anthropic messages' },
  { format: 'responses', path: 'responses', label: 'OpenAI responses' },
];
