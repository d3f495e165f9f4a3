/**
 * The caps on what a caller holds open for long (event streams: sse.ts; MCP sessions:
 * src/mcp/sessions.ts): at most `perKey` for one API key and `perProcess` in all, counted here by
 * key as they open and close.
 */
export interface OpenCaps {
  /** Open per API key. */
  perKey: number;
  /** Open in this process. */
  perProcess: number;
}

/** Why one more cannot be opened now. */
export type CapRefusal = 'closing' | 'per_key' | 'per_process';

export const openCounts = (limits: OpenCaps) => {
  const perKey = new Map<string, number>();
  return {
    /** `open`: how many are open in this process; `closing`: the process is shutting down. */
    refusal(keyId: string, open: number, closing: boolean): CapRefusal | null {
      if (closing) return 'closing';
      if (open >= limits.perProcess) return 'per_process';
      if ((perKey.get(keyId) ?? 0) >= limits.perKey) return 'per_key';
      return null;
    },
    opened(keyId: string) {
      perKey.set(keyId, (perKey.get(keyId) ?? 0) + 1);
    },
    closed(keyId: string) {
      const n = (perKey.get(keyId) ?? 1) - 1;
      if (n > 0) perKey.set(keyId, n);
      else perKey.delete(keyId);
    },
  };
};
