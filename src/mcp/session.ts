import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Caller, KeyRing } from '../auth/apiKeys';
import type { EventFeed, Subscription } from '../eventstore/eventFeed';
import { parsePresetStreamName } from '../presets/streamName';
import { watchKey } from '../http/keyGone';
import type { WriteDeps } from '../http/routes/writes';
import { createMcpServer, type McpServerDeps } from './server';
import type { McpSessionEnd, McpSessions, TrackedSession } from './sessions';
import { workspaceStreamPrefix } from '../events/workspaceStreams';

/**
 * One MCP session: its server (./server.ts) on a Streamable HTTP transport of its own, acting for
 * the key that initialized it in one workspace. While it lasts it follows the workspace's events on
 * the shared tail (the feed the composition gives: one reader of the log per process) and, once the
 * read model shows a change, tells the client `notifications/prompts/list_changed` and
 * `notifications/resources/list_changed`; and it watches its key, ending when the key is revoked or
 * expires. The registry (./sessions.ts) bounds how many there are and ends idle ones.
 */
export interface McpSessionDeps extends McpServerDeps {
  /** The shared tail's feed (src/feed/sharedTail.ts): subscribing costs no read of the log of its own. */
  feed: Pick<EventFeed, 'subscribe' | 'headPosition'>;
  keyRing?: Pick<KeyRing, 'watch'>;
  /** Read-your-writes: the notification waits until the read model shows the change (at most NOTIFY_WAIT_MS). */
  waitForPreset: WriteDeps['waitForPreset'];
  mcpSessions: McpSessions;
}

/** How long a change's notification waits for the read model to show it before it goes anyway. */
export const NOTIFY_WAIT_MS = 800;
/** Changes this close together make one notification. */
const COALESCE_MS = 20;

export const startMcpSession = (
  deps: McpSessionDeps,
  caller: Caller,
  workspaceId: string,
  log: Logger,
): { transport: StreamableHTTPServerTransport; ready: Promise<void> } => {
  const mcp = createMcpServer(deps, workspaceId);
  let subscription: Subscription | undefined;
  let unwatch: () => void = () => undefined;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  const changed = () => {
    if (ended || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (ended || !mcp.isConnected()) return;
      mcp.sendPromptListChanged();
      mcp.sendResourceListChanged();
    }, COALESCE_MS);
  };

  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    // Answers as JSON: nothing here streams progress, and a proxy passes a JSON answer as it is.
    enableJsonResponse: true,
    onsessioninitialized: async (id) => {
      const sessionLog = log.child({ mcp_session: id });
      const tracked: TrackedSession = {
        id,
        keyId: caller.keyId,
        workspaceId,
        handleRequest: (req, res, body) => transport.handleRequest(req, res, body),
        async end(why: McpSessionEnd) {
          if (ended) return;
          ended = true;
          clearTimeout(timer);
          unwatch();
          sessionLog.info({ reason: why }, 'MCP session ended');
          await subscription?.stop();
          await transport.close();
          await mcp.close();
        },
      };
      deps.mcpSessions.add(tracked);
      sessionLog.info({ workspace_id: workspaceId }, 'MCP session started');
      // From the log's head now: what is written from here on is a change this session hears of.
      const head = await deps.feed.headPosition();
      if (ended) return;
      subscription = deps.feed.subscribe(
        head === null ? 'start' : { after: head },
        async (event) => {
          const preset = parsePresetStreamName(event.stream);
          if (!preset) return; // the workspace's keys stream
          // A read model that cannot be read now delays nothing: the change is announced all the same.
          await deps.waitForPreset(workspaceId, preset.slug, event.revision, NOTIFY_WAIT_MS).catch(() => null);
          changed();
        },
        {
          streamPrefix: workspaceStreamPrefix(workspaceId),
          onError: (error) => {
            sessionLog.error({ err: error }, 'MCP session stopped following the log; ending it');
            void deps.mcpSessions.end(id, 'feed_failed');
          },
        },
      );
      // A revoked or expired key's session ends at once, on every replica (src/http/keyGone.ts).
      unwatch = watchKey(deps.keyRing, caller, (gone) => void deps.mcpSessions.end(id, gone));
    },
    onsessionclosed: (id) => deps.mcpSessions.end(id, 'deleted'),
  });
  return { transport, ready: mcp.connect(transport) };
};
