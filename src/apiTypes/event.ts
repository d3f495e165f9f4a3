/**
 * An event as the API shows it (GET /api/v1/events, /api/v1/presets/{slug}/events, the live
 * stream and webhook payloads), for the service's clients: the web console (src/console/) and
 * presets/client (src/client/) import it, and nothing else of the service (eslint.config.mjs).
 * Types only, importing nothing, so importing it brings no code along. The service's codec for
 * the same shape (src/workspaceLog/eventJson.ts) is checked against it at compile time.
 */

/** The request format a version was made from. */
export type ApiEventSourceFormat = 'chat_completions' | 'messages' | 'responses';

export interface ApiEventMetadata {
  requestId: string;
  actorUserId: string;
  /** The event's schema version; the API answers every event upcast to the current one. */
  schemaVersion: number;
  /** Present on events made from an inference request body. */
  sourceFormat?: ApiEventSourceFormat;
}

export interface ApiEvent {
  /** The event's id (a UUID). */
  id: string;
  /** PresetCreated, PresetVersionAdded, …: docs/events.md lists them and their data. */
  type: string;
  /** The preset's stream, `preset-<workspace uuid>-<slug>`, or the workspace's keys stream, `preset-<workspace uuid>-~keys`. */
  stream: string;
  /** Its place in its stream, from 0. */
  revision: number;
  /** Its place in the whole store, a decimal string: positions can exceed 2^53. */
  position: string;
  /** When it was stored (ISO 8601). */
  recorded_at: string;
  /** What happened, and when; a preset's events name the preset (`presetId`), a key's event the key (`keyId`). */
  data: { presetId?: string; occurredAt: string } & Record<string, unknown>;
  metadata: ApiEventMetadata;
}
