import type { StoredEvent } from '../events/envelope';
import { eventRegistry } from '../events/registry';
import { keysStreamType, type KeyEvent } from '../keys/events';
import { presetStreamType, type PresetEvent } from '../presets/events';

/**
 * A workspace's log: every stream type of a workspace registered into one table
 * (src/events/registry.ts), for the readers of the whole log (the feed and its live stream,
 * webhooks, consumer groups, the audit report, the projector, the published schemas). A stream
 * type's own code (src/presets, src/keys) reads through its own registry and never imports
 * another's; adding a stream type is one line here (docs/architecture.md, "Adding a stream type").
 */
export const workspaceEvents = eventRegistry<WorkspaceEvent>(presetStreamType, keysStreamType);

/** Every event of a workspace's log: its presets' and its keys'. */
export type WorkspaceEvent = PresetEvent | KeyEvent;
export type WorkspaceEventType = WorkspaceEvent['type'];
export type StoredWorkspaceEvent = StoredEvent<WorkspaceEvent>;

/** Every event type of the log, stream type by stream type, each in the order its types were introduced. */
export const WORKSPACE_EVENT_TYPES: readonly WorkspaceEventType[] = workspaceEvents.types;

/** Upcasts and checks any event of the log; an event of a type no stream type registered is a MalformedEvent. */
export const decodeWorkspaceEvent = workspaceEvents.decode;
