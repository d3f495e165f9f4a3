import * as E from 'fp-ts/Either';
import { resolve } from 'node:path';

/** The service's configuration, read once from the environment and validated at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  apiKeysFile?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long a POST waits for the read model to show its write before answering 202. */
  readYourWritesTimeoutMs: number;
  bodyLimitBytes: number;
  /** How long a shutdown waits for requests in flight. */
  shutdownTimeoutMs: number;
  /** Requests per minute per API key (429 past it); undefined: no limit. */
  rateLimitPerMinute?: number;
  /** How often an idle server-sent event stream gets a heartbeat comment (keeps proxies from timing it out). */
  sseHeartbeatMs: number;
  /** Open event streams per API key, and in this process (429 past either). */
  sseMaxPerKey: number;
  sseMaxConnections: number;
  /** MCP sessions per API key and in this process (429 past either), and how long an unused one lasts (docs/mcp.md). */
  mcpMaxSessionsPerKey: number;
  mcpMaxSessions: number;
  mcpSessionIdleMs: number;
  /** Run the projector inside this process (default) or leave it to `npm run projector`. */
  projector: boolean;
  eventstoreUrl?: string;
  mongodbUrl?: string;
  /** Deliver webhooks from this process (default); off on all but one of several API replicas. */
  webhooks: boolean;
  /** The most one delivery attempt may take. */
  webhookTimeoutMs: number;
  /** The longest wait between two attempts at one event. */
  webhookRetryMaxMs: number;
  /** A webhook whose every attempt has failed for this long is disabled. */
  webhookDisableAfterMs: number;
  /** Let webhooks reach loopback, private and link-local addresses (local development, tests). */
  webhookAllowPrivateNetworks: boolean;
  /** Serve GET /metrics on a port of its own (on HOST) instead of the API's. */
  metricsPort?: number;
  /** When set, GET /metrics asks for `Authorization: Bearer <token>`. */
  metricsToken?: string;
  /** How often this process adds its usage counts (resolutions answered) to the usage store; also at shutdown. */
  usageFlushMs: number;
  /** How often each workspace that changed gets an audit checkpoint (LogCheckpointed). */
  auditCheckpointIntervalMs: number;
}

type Env = Record<string, string | undefined>;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const loadConfig = (env: Env): E.Either<string[], Config> => {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return fallback;
  };
  const url = (name: string, schemes: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (!schemes.some((s) => raw.startsWith(`${s}://`)))
      problems.push(`${name} must start with ${schemes.map((s) => `${s}://`).join(' or ')}`);
    return raw;
  };
  const config: Config = {
    port: int('PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR || './data'),
    apiKeysFile: env.API_KEYS_FILE ? resolve(env.API_KEYS_FILE) : undefined,
    logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    readYourWritesTimeoutMs: int('READ_YOUR_WRITES_TIMEOUT_MS', 5000, 0, 60_000),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE ? int('RATE_LIMIT_PER_MINUTE', 0, 1, 1_000_000) : undefined,
    sseHeartbeatMs: int('SSE_HEARTBEAT_MS', 15_000, 10, 600_000),
    sseMaxPerKey: int('SSE_MAX_PER_KEY', 100, 1, 1_000_000),
    sseMaxConnections: int('SSE_MAX_CONNECTIONS', 2000, 1, 1_000_000),
    mcpMaxSessionsPerKey: int('MCP_MAX_SESSIONS_PER_KEY', 20, 1, 1_000_000),
    mcpMaxSessions: int('MCP_MAX_SESSIONS', 1000, 1, 1_000_000),
    mcpSessionIdleMs: int('MCP_SESSION_IDLE_MS', 30 * 60_000, 100, 86_400_000),
    projector: oneOf('PROJECTOR', ['on', 'off'] as const, 'on') === 'on',
    eventstoreUrl: url('EVENTSTORE_URL', ['esdb', 'esdb+discover', 'kurrentdb', 'kurrentdb+discover']),
    mongodbUrl: url('MONGODB_URL', ['mongodb', 'mongodb+srv']),
    webhooks: oneOf('WEBHOOKS', ['on', 'off'] as const, 'on') === 'on',
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookRetryMaxMs: int('WEBHOOK_RETRY_MAX_MS', 600_000, 10, 86_400_000),
    webhookDisableAfterMs: int('WEBHOOK_DISABLE_AFTER_MS', 3 * 86_400_000, 1000, 365 * 86_400_000),
    webhookAllowPrivateNetworks: oneOf('WEBHOOK_ALLOW_PRIVATE_NETWORKS', ['true', 'false'] as const, 'false') === 'true',
    metricsPort: env.METRICS_PORT ? int('METRICS_PORT', 0, 0, 65535) : undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    usageFlushMs: int('USAGE_FLUSH_MS', 10_000, 10, 3_600_000),
    auditCheckpointIntervalMs: int('AUDIT_CHECKPOINT_INTERVAL_MS', 60_000, 100, 86_400_000),
  };
  if (config.metricsToken !== undefined && config.metricsToken.length < 16)
    problems.push('METRICS_TOKEN must be at least 16 characters (a scraper presents it as a bearer token)');
  return problems.length > 0 ? E.left(problems) : E.right(config);
};
