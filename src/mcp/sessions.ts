import type { IncomingMessage, ServerResponse } from 'node:http';
import { openCounts, type CapRefusal, type OpenCaps } from '../http/caps';

/**
 * The MCP sessions this process holds open, and their bounds: at most `perProcess` sessions and
 * `perKey` per API key (a new one past either is refused), and a session with nothing in flight
 * (no request, no open notification stream) for `idleMs` is ended. A session ended for any reason
 * (idle, DELETE, its key revoked or expired, a shutdown) is gone: a request that names it is a
 * 404, and an MCP client starts a new one (docs/mcp.md).
 */
/** The caps of src/http/caps.ts, and how long an idle session lasts. */
export interface McpSessionLimits extends OpenCaps {
  idleMs: number;
}

/** MCP_MAX_SESSIONS_PER_KEY, MCP_MAX_SESSIONS and MCP_SESSION_IDLE_MS unless configured. */
export const DEFAULT_MCP_LIMITS: McpSessionLimits = { perKey: 20, perProcess: 1000, idleMs: 30 * 60_000 };

/** Why a session ended. */
export type McpSessionEnd = 'idle' | 'deleted' | 'key_revoked' | 'key_expired' | 'keys_unavailable' | 'shutdown' | 'feed_failed';

/**
 * A session as the registry tracks it: `handleRequest` hands a request of the session to its
 * transport; `end` is the session's own (it closes its transport and stops what it follows).
 */
export interface TrackedSession {
  readonly id: string;
  readonly keyId: string;
  readonly workspaceId: string;
  handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void>;
  end(why: McpSessionEnd): Promise<void>;
}

export type McpRefusal = CapRefusal;

export interface McpSessions {
  /** Whether one more session for this key may start now; null when it may. */
  refusal(keyId: string): McpRefusal | null;
  add(session: TrackedSession): void;
  get(id: string): TrackedSession | undefined;
  /** A request of the session started: it is not idle until the returned function is called (its answer is done). */
  busy(id: string): () => void;
  /** Ends the session and forgets it (nothing when it is not there). */
  end(id: string, why: McpSessionEnd): Promise<void>;
  /** Ends every session, and refuses new ones from now on. */
  closeAll(): Promise<void>;
  readonly size: number;
  readonly limits: McpSessionLimits;
}

interface Entry {
  session: TrackedSession;
  inFlight: number;
  lastActive: number;
}

export const createMcpSessions = (limits: McpSessionLimits = DEFAULT_MCP_LIMITS, now: () => number = Date.now): McpSessions => {
  const sessions = new Map<string, Entry>();
  const counts = openCounts(limits);
  let closing = false;
  let sweeper: NodeJS.Timeout | undefined;

  const forget = (id: string): Entry | undefined => {
    const entry = sessions.get(id);
    if (!entry) return undefined;
    sessions.delete(id);
    counts.closed(entry.session.keyId);
    if (sessions.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    return entry;
  };
  const end = async (id: string, why: McpSessionEnd) => {
    const entry = forget(id);
    if (entry) await entry.session.end(why);
  };
  const sweep = () => {
    const t = now();
    for (const [id, entry] of sessions) if (entry.inFlight === 0 && t - entry.lastActive >= limits.idleMs) void end(id, 'idle');
  };

  return {
    refusal: (keyId) => counts.refusal(keyId, sessions.size, closing),
    add(session) {
      sessions.set(session.id, { session, inFlight: 0, lastActive: now() });
      counts.opened(session.keyId);
      // Looked at a few times per idle period: a session ends between idleMs and 1.25 × idleMs after its last request.
      sweeper ??= setInterval(sweep, Math.max(10, Math.floor(limits.idleMs / 4))).unref();
    },
    get: (id) => sessions.get(id)?.session,
    busy(id) {
      const entry = sessions.get(id);
      if (!entry) return () => undefined;
      entry.inFlight++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        entry.inFlight--;
        entry.lastActive = now();
      };
    },
    end,
    async closeAll() {
      closing = true;
      await Promise.all([...sessions.keys()].map((id) => end(id, 'shutdown')));
    },
    get size() {
      return sessions.size;
    },
    limits,
  };
};
