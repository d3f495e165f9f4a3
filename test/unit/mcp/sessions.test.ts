import { createMcpSessions, type McpSessionEnd, type TrackedSession } from '#src/mcp/sessions';

/** The bounds on MCP sessions: caps per key and per process, idle expiry, ending and shutting down. */
const session = (id: string, keyId: string, ended: Array<[string, McpSessionEnd]>): TrackedSession => ({
  id,
  keyId,
  workspaceId: 'w',
  handleRequest: async () => undefined,
  end: async (why) => void ended.push([id, why]),
});

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('the MCP session registry', () => {
  it('refuses past the cap per key and the cap per process, and takes sessions again as they end', async () => {
    const ended: Array<[string, McpSessionEnd]> = [];
    const sessions = createMcpSessions({ perKey: 2, perProcess: 3, idleMs: 60_000 });
    sessions.add(session('a1', 'a', ended));
    expect(sessions.refusal('a')).toBeNull();
    sessions.add(session('a2', 'a', ended));
    expect(sessions.refusal('a')).toBe('per_key');
    expect(sessions.refusal('b')).toBeNull();
    sessions.add(session('b1', 'b', ended));
    expect(sessions.refusal('b')).toBe('per_process');
    await sessions.end('a1', 'deleted');
    expect(ended).toEqual([['a1', 'deleted']]);
    expect(sessions.get('a1')).toBeUndefined();
    expect(sessions.refusal('a')).toBeNull();
    expect(sessions.size).toBe(2);
  });

  it('ends a session idle for idleMs, not one with a request in flight, and counts idleness from its last answer', async () => {
    const ended: Array<[string, McpSessionEnd]> = [];
    const sessions = createMcpSessions({ perKey: 10, perProcess: 10, idleMs: 1000 }, () => Date.now());
    sessions.add(session('idle', 'k', ended));
    sessions.add(session('streaming', 'k', ended));
    sessions.add(session('recent', 'k', ended));
    const stream = sessions.busy('streaming');
    jest.advanceTimersByTime(900);
    sessions.busy('recent')(); // a request answered at 900 ms
    jest.advanceTimersByTime(400);
    expect(ended).toEqual([['idle', 'idle']]);
    jest.advanceTimersByTime(5000);
    expect(ended).toEqual([
      ['idle', 'idle'],
      ['recent', 'idle'],
    ]);
    stream(); // the notification stream closed: idle from now
    jest.advanceTimersByTime(1300);
    expect(ended.map(([id]) => id)).toEqual(['idle', 'recent', 'streaming']);
    expect(sessions.size).toBe(0);
  });

  it('ends every session at shutdown, and refuses new ones', async () => {
    const ended: Array<[string, McpSessionEnd]> = [];
    const sessions = createMcpSessions();
    sessions.add(session('x', 'k', ended));
    sessions.add(session('y', 'l', ended));
    await sessions.closeAll();
    expect(ended).toEqual([
      ['x', 'shutdown'],
      ['y', 'shutdown'],
    ]);
    expect(sessions.refusal('k')).toBe('closing');
  });
});
