import type { StreamName } from '../eventstore/eventStore';
import { parseWorkspaceStream, workspaceStreamPrefix } from '../presets/streamName';

/**
 * A workspace's keys live in one stream of the workspace, `preset-<workspace uuid>-~keys`: it
 * shares the workspace's prefix, so its events are in the workspace's feed, live stream and
 * webhooks like any other, and `~keys` is no slug (a slug starts with a letter or digit), so it
 * never names a preset. The projector, rebuild and verify pass it by (`isKeysStream`); the key
 * ring follows it (keyRing.ts).
 */
export const KEYS_STREAM_NAME = '~keys';

export const keysStreamName = (workspaceId: string): StreamName => `${workspaceStreamPrefix(workspaceId)}${KEYS_STREAM_NAME}`;

export const isKeysStream = (stream: StreamName): boolean => parseWorkspaceStream(stream)?.name === KEYS_STREAM_NAME;
