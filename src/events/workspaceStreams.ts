import type { StreamName } from '../eventstore/eventStore';

/**
 * Every stream of a workspace is named `preset-<workspace uuid>-<name>`: a preset's (its name is
 * its slug, src/presets/streamName.ts) and the workspace's keys stream (`~keys`,
 * src/keys/streamName.ts). They share the prefix, so the workspace's feed, live stream, webhooks
 * and consumer groups read one prefix; readers select what they handle by event type. The category
 * is `preset` (EventStoreDB's `$ce-preset` splits at the first dash; the name predates the keys
 * stream), and the workspace id has a fixed length, so a name parses back without ambiguity.
 */
export const WORKSPACE_CATEGORY = 'preset';
export const WORKSPACE_STREAM_PREFIX = `${WORKSPACE_CATEGORY}-`;

/** All streams of one workspace share this prefix. */
export const workspaceStreamPrefix = (workspaceId: string): string => `${WORKSPACE_STREAM_PREFIX}${workspaceId}-`;

/** A workspace stream's name within its workspace. */
export const workspaceStreamName = (workspaceId: string, name: string): StreamName => `${workspaceStreamPrefix(workspaceId)}${name}`;

const UUID_LENGTH = 36;

/** Any stream of a workspace: its workspace and its name within it; null for a stream of no workspace. */
export const parseWorkspaceStream = (stream: StreamName): { workspaceId: string; name: string } | null => {
  if (!stream.startsWith(WORKSPACE_STREAM_PREFIX)) return null;
  const rest = stream.slice(WORKSPACE_STREAM_PREFIX.length);
  if (rest.length < UUID_LENGTH + 2 || rest[UUID_LENGTH] !== '-') return null;
  return { workspaceId: rest.slice(0, UUID_LENGTH), name: rest.slice(UUID_LENGTH + 1) };
};
