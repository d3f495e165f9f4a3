import type { StreamName } from '../eventstore/eventStore';
import { parseWorkspaceStream, workspaceStreamName } from '../events/workspaceStreams';
import { SLUG } from './names';

/** One stream per preset, named by its slug within its workspace: `preset-<workspace uuid>-<slug>` (src/events/workspaceStreams.ts). */
export const presetStreamName = (workspaceId: string, slug: string): StreamName => workspaceStreamName(workspaceId, slug);

/** A preset's stream: null for any other (a workspace's keys stream, whose name is no slug). */
export const parsePresetStreamName = (stream: StreamName): { workspaceId: string; slug: string } | null => {
  const parsed = parseWorkspaceStream(stream);
  return parsed && SLUG.test(parsed.name) ? { workspaceId: parsed.workspaceId, slug: parsed.name } : null;
};
