import type { StreamName } from '../eventstore/eventStore';
import { SLUG } from './names';

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

/** Any stream of a workspace: a preset's (its name is the slug) or the workspace's keys stream (`~keys`). */
export const parseWorkspaceStream = (stream: StreamName): { workspaceId: string; name: string } | null => {
  if (!stream.startsWith(PRESET_STREAM_PREFIX)) return null;
  const rest = stream.slice(PRESET_STREAM_PREFIX.length);
  if (rest.length < UUID_LENGTH + 2 || rest[UUID_LENGTH] !== '-') return null;
  return { workspaceId: rest.slice(0, UUID_LENGTH), name: rest.slice(UUID_LENGTH + 1) };
};

/** A preset's stream: null for any other (a workspace's keys stream, whose name is no slug). */
export const parsePresetStreamName = (stream: StreamName): { workspaceId: string; slug: string } | null => {
  const parsed = parseWorkspaceStream(stream);
  return parsed && SLUG.test(parsed.name) ? { workspaceId: parsed.workspaceId, slug: parsed.name } : null;
};
