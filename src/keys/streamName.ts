import type { StreamName } from '../eventstore/eventStore';
import { workspaceStreamName } from '../events/workspaceStreams';

/**
 * A workspace's keys live in one stream of the workspace, `preset-<workspace uuid>-~keys`: it
 * shares the workspace's prefix (src/events/workspaceStreams.ts), so its events are in the
 * workspace's feed, live stream and webhooks like any other, and `~keys` is no slug (a slug starts
 * with a letter or digit), so it never names a preset. Readers of the whole log tell its events by
 * their types (src/keys/events.ts), not by the stream's name.
 */
export const KEYS_STREAM_NAME = '~keys';

export const keysStreamName = (workspaceId: string): StreamName => workspaceStreamName(workspaceId, KEYS_STREAM_NAME);
