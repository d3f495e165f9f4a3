import type { StreamName } from '../eventstore/eventStore';

/**
 * One stream per preset: `preset-<workspace uuid>-<slug>`.
 * The category is `preset` (EventStoreDB's `$ce-preset` splits at the first dash), and the
 * workspace id has a fixed length, so the name parses back without ambiguity.
 */
export const PRESET_CATEGORY = 'preset';
export const PRESET_STREAM_PREFIX = `${PRESET_CATEGORY}-`;

export const presetStreamName = (workspaceId: string, slug: string): StreamName => `${PRESET_STREAM_PREFIX}${workspaceId}-${slug}`;

/** All streams of one workspace share this prefix. */
export const workspaceStreamPrefix = (workspaceId: string): string => `${PRESET_STREAM_PREFIX}${workspaceId}-`;

const UUID_LENGTH = 36;

export const parsePresetStreamName = (stream: StreamName): { workspaceId: string; slug: string } | null => {
  if (!stream.startsWith(PRESET_STREAM_PREFIX)) return null;
  const rest = stream.slice(PRESET_STREAM_PREFIX.length);
  if (rest.length < UUID_LENGTH + 2 || rest[UUID_LENGTH] !== '-') return null;
  return { workspaceId: rest.slice(0, UUID_LENGTH), slug: rest.slice(UUID_LENGTH + 1) };
};
