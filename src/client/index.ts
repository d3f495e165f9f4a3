import * as E from 'fp-ts/Either';
import type { FormatName } from '../formats';
import type { Resolution } from '../resolve/codecs';
import type { ResolveFailure } from '../resolve/failure';
import { resolveRequest, type ResolveOptions } from '../resolve/resolve';
import { startUsageCounters, type UsageCounters } from '../usage/counters';
import { clientApi, PresetServiceError } from './api';
import { createPresetCopy, type FeedEvent } from './copy';
import { followFeed, type Feed } from './feed';

/**
 * `presets/client`: resolve requests that name a preset inside a Node gateway, with no round trip.
 * The client holds a copy of the workspace's presets, made on first use and kept current by the
 * live event feed, and resolves with the very function the service's resolve endpoints use, so
 * its answers are the service's for the same state.
 *
 *   const presets = createPresetClient({ baseUrl: 'http://presets:8080', apiKey: process.env.PRESETS_KEY! });
 *   const { request } = await presets.resolve('chat_completions', body);
 */
export type { FormatName, Resolution };
export { PresetServiceError };
export { consume, type Consumer, type ConsumerOptions } from './consume';
export type { ApiEvent } from '../apiTypes/event';

export interface PresetClientOptions {
  /** The service, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** A key with the presets:read scope. */
  apiKey: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** While the feed is down this long, what the client holds is revalidated (If-None-Match), and again as long after (default 10 s). */
  revalidateAfterMs?: number;
  /** Reconnection waits: a random time up to `initialMs`·2^attempt, at most `maxMs` (defaults 1 s, 30 s). */
  reconnect?: { initialMs?: number; maxMs?: number };
  /** Versions kept besides each preset's designated and newest one (default 10,000). */
  maxVersions?: number;
  /** Told of each problem the client recovers from by itself: the feed dropping, a failed revalidation, a failed usage flush. */
  onError?: (error: unknown) => void;
  /**
   * Count the resolutions this client answers, per preset, label, version and hour, and report them to
   * the service (its usage counts) on `flushUsage()`, at `close()`, and every `flushEveryMs` when set.
   * Unset: nothing is counted.
   */
  usage?: { flushEveryMs?: number };
}

/** What a caller may say beside the body. */
export interface ResolveCallOptions {
  /** The key a split label is resolved by, as the `Preset-Split-Key` header gives it to the service. */
  splitKey?: string;
  /**
   * The values a templated version is filled with, as `prompt_variables` in the body would give
   * them (the same checks, answers and errors: their paths say `$.prompt_variables`); giving them
   * both here and in the body is refused.
   */
  variables?: Record<string, unknown>;
}

/** The service's answer when a request cannot be resolved: the same code, message and metadata the HTTP endpoint answers with. */
export class PresetResolveError extends Error {
  override readonly name = 'PresetResolveError';
  readonly code: number;
  readonly metadata: Record<string, unknown>;
  constructor(failure: ResolveFailure) {
    super(failure.message);
    this.code = failure.status;
    this.metadata = failure.metadata;
  }
}

export interface PresetClient {
  /**
   * The request to send for `body`, a request of `format` that names a preset. Rejects with a
   * PresetResolveError for what the service would answer 4xx; with another error when the
   * service could not be reached for the first copy. Parts of the answer come from the client's
   * copy and are frozen: copy before changing them (structuredClone).
   */
  resolve(format: FormatName, body: unknown, options?: ResolveCallOptions): Promise<Resolution>;
  /** Reports the usage counted since the last flush to the service (nothing without the `usage` option). */
  flushUsage(): Promise<void>;
  /** Resolves once the copy is made (resolve waits for it anyway). */
  ready(): Promise<void>;
  /** Stops following the feed, and flushes the usage counted. */
  close(): Promise<void>;
}

/** The error a stream's last `event: error` frame carries (the service's error envelope). */
const streamError = (data: string): PresetServiceError => {
  try {
    const { error } = JSON.parse(data) as { error: { code: number; message: string } };
    return new PresetServiceError(error.code, `GET /api/v1/events ended: ${error.code} ${error.message}`);
  } catch {
    return new PresetServiceError(500, `GET /api/v1/events ended with an error: ${data.slice(0, 500)}`);
  }
};

export const createPresetClient = (options: PresetClientOptions): PresetClient => {
  const api = clientApi({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch ?? globalThis.fetch });
  const copy = createPresetCopy(api, { maxVersions: options.maxVersions ?? 10_000 });
  const revalidateAfterMs = options.revalidateAfterMs ?? 10_000;
  const report = options.onError ?? (() => {});
  let loading: Promise<void> | undefined;
  let feed: Feed | undefined;
  let revalidation: NodeJS.Timeout | undefined;
  let closed = false;
  // The slug of each preset counted, for the report (the service counts by the preset the slug names).
  const slugs = new Map<string, string>();
  const usage: UsageCounters | undefined = options.usage
    ? startUsageCounters({
        store: {
          add: async (counts) => {
            const refused = await api.reportUsage(
              counts.map(({ presetId, label, version, hour, count }) => ({ slug: slugs.get(presetId)!, label, version, hour, count })),
            );
            if (refused) report(refused);
          },
        },
        flushEveryMs: options.usage.flushEveryMs,
        onError: report,
      })
    : undefined;

  // While the feed is down: revalidate after the bound, then every bound until it is back.
  const feedDown = () => {
    if (revalidation || closed) return;
    revalidation = setInterval(() => {
      copy.revalidate().catch(report);
    }, revalidateAfterMs);
    revalidation.unref();
  };
  const feedUp = () => {
    clearInterval(revalidation);
    revalidation = undefined;
  };

  const start = async () => {
    const position = await copy.load();
    if (closed) return;
    feedDown(); // until the stream is open
    feed = followFeed({
      open: (lastEventId, signal) => api.openFeed(lastEventId, signal),
      after: position,
      onEvent: async (message) => {
        // The service ended the stream: its last frame says why (a revoked or expired key: 401).
        if (message.event === 'error') throw streamError(message.data);
        if (message.data) await copy.apply(JSON.parse(message.data) as FeedEvent);
      },
      onOpen: feedUp,
      onDown: (error) => {
        if (error !== undefined) report(error);
        feedDown();
      },
      backoff: { initialMs: options.reconnect?.initialMs ?? 1000, maxMs: options.reconnect?.maxMs ?? 30_000 },
    });
  };

  const ready = () => {
    if (closed) return Promise.reject(new Error('the preset client is closed'));
    loading ??= start().catch((error: unknown) => {
      loading = undefined; // the next call tries again
      throw error;
    });
    return loading;
  };

  return {
    async resolve(format, body, callOptions) {
      await ready();
      const resolveOptions: ResolveOptions =
        callOptions === undefined
          ? {}
          : {
              ...(callOptions.splitKey ? { splitKey: callOptions.splitKey } : {}),
              ...(callOptions.variables !== undefined ? { variables: callOptions.variables } : {}),
            };
      const resolved = await resolveRequest(format, body, copy, resolveOptions);
      if (E.isLeft(resolved)) throw new PresetResolveError(resolved.left);
      if (usage) {
        const { preset } = resolved.right;
        slugs.set(preset.id, preset.slug);
        usage.count({ workspaceId: '', presetId: preset.id, label: preset.label, version: preset.version });
      }
      return resolved.right;
    },
    flushUsage: () => usage?.flush() ?? Promise.resolve(),
    ready,
    async close() {
      closed = true;
      feedUp();
      await feed?.stop();
      await usage?.stop().catch(report);
    },
  };
};
