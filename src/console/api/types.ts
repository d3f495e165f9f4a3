/**
 * The answers of the public API as the console reads them (README, "API"). The console is a
 * client like any other: it knows the API by its documented shapes, not by the service's code.
 */
export type PresetStatus = 'active' | 'disabled' | 'archived';

/** How a version's text is read: as it is, or as Handlebars templates filled in at resolve (docs/templates.md). */
export type TemplateFormat = 'none' | 'handlebars';
export interface VersionMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface Version {
  id: string;
  preset_id: string;
  version: number;
  config: Record<string, unknown>;
  system_prompt: string;
  /** Absent on versions a read model made before templates holds: read them as "none". */
  template_format?: TemplateFormat;
  /** The JSON Schema of the variables a templated version takes; null when it takes none. */
  variables?: JsonSchema | null;
  messages?: VersionMessage[];
  source_format?: SourceFormat | null;
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

/** The scopes a key can hold (the service's list: src/auth/scopes.ts). */
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
  template_format: TemplateFormat;
  variables: JsonSchema | null;
  messages: VersionMessage[];
  source_format: SourceFormat;
  note: string | null;
}

/** A variables schema as the console reads it: a JSON Schema, of which it shows and asks for what it knows. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  format?: string;
  pattern?: string;
  items?: JsonSchema;
  [keyword: string]: unknown;
}

/** POST /api/v1/resolve/{format}: the request to send, and what was used. */
export interface Resolution {
  request: Record<string, unknown>;
  preset: { slug: string; version: number; label: string | null; source_format: SourceFormat; template_format?: TemplateFormat };
  dropped: Array<{ field: string; reason: string }>;
  overridden: string[];
  unused_variables?: string[];
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
