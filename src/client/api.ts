import type { PresetView, VersionView } from '../../projections/readmodel/readModel';

/**
 * The service's read API as the client uses it: the workspace's presets page by page, one preset
 * (conditionally, with If-None-Match), one version, the newest version. Every call names the key
 * and goes through the fetch the caller gave.
 */
export interface ClientApi {
  /** One page of the workspace's presets (every status), and the feed position the page reflects (when the read model has one). */
  listPresets(offset: number, limit: number): Promise<{ items: PresetView[]; total: number; position?: string }>;
  /** The preset and its revision; `unchanged` when `revision` is still current; null when there is none. */
  getPreset(slug: string, revision?: bigint): Promise<{ view: PresetView; revision: bigint } | 'unchanged' | null>;
  getVersion(slug: string, number: number): Promise<VersionView | null>;
  latestVersion(slug: string): Promise<VersionView | null>;
  /** The live feed's answer, to read as a stream. */
  openFeed(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /**
   * Adds the resolutions this client answered to the service's usage counts (POST /api/v1/usage).
   * Counts the service refuses for good (a 400) are dropped, and the refusal is answered; any
   * other failure rejects.
   */
  reportUsage(counts: ReportedUsage[]): Promise<PresetServiceError | undefined>;
}

/** One count of a usage report: resolutions of a preset's label and version answered in an hour. */
export interface ReportedUsage {
  slug: string;
  label: string | null;
  version: number;
  hour: string;
  count: number;
}

/** At most this many counts per report, as the service takes them. */
const REPORT_SIZE = 1000;

/** An answer the client did not expect (a 5xx, a 401 for a revoked key): what the service said. */
export class PresetServiceError extends Error {
  override readonly name = 'PresetServiceError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiOptions {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
}

const REVISION_ETAG = /^"(\d+)"$/;

/** The counts a 400 to a usage report names (`$.counts[N]…`), and the refusal itself. */
const refusedCounts = async (res: Response): Promise<{ named: Set<number>; error: PresetServiceError }> => {
  const text = await res.text().catch(() => '');
  let body: { error?: { message?: string; metadata?: { errors?: { path?: string; message?: string }[] } } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not JSON: nothing named
  }
  const named = new Set<number>();
  for (const e of body.error?.metadata?.errors ?? []) {
    const at = /^\$\.counts\[(\d+)\]/.exec(e.path ?? '');
    if (at) named.add(Number(at[1]));
  }
  const problems = (body.error?.metadata?.errors ?? []).map((e) => `${e.path ?? ''}: ${e.message ?? ''}`);
  const message = [body.error?.message ?? text.slice(0, 500), ...problems].join('; ');
  return { named, error: new PresetServiceError(400, `POST /api/v1/usage: 400 ${message}; those counts were dropped`) };
};

export const clientApi = ({ baseUrl, apiKey, fetch }: ApiOptions): ClientApi => {
  const base = baseUrl.replace(/\/+$/, '');
  const authorization = `Bearer ${apiKey}`;
  const call = async (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers: { authorization, ...headers } });
  const fail = async (res: Response, what: string): Promise<never> => {
    const text = await res.text().catch(() => '');
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // not JSON: the text itself
    }
    throw new PresetServiceError(res.status, `${what}: ${res.status} ${message}`);
  };
  const slugPath = (slug: string) => `/api/v1/presets/${encodeURIComponent(slug)}`;
  const versionsPage = async (slug: string, offset: number) => {
    const res = await call(`${slugPath(slug)}/versions?offset=${offset}&limit=1`);
    if (res.status === 404) return null;
    if (res.status !== 200) return fail(res, `GET versions of ${slug}`);
    return (await res.json()) as { data: VersionView[]; total_count: number };
  };

  return {
    async listPresets(offset, limit) {
      const res = await call(`/api/v1/presets?status=all&offset=${offset}&limit=${limit}`);
      if (res.status !== 200) return fail(res, 'GET /api/v1/presets');
      const body = (await res.json()) as { data: PresetView[]; total_count: number };
      return { items: body.data, total: body.total_count, position: res.headers.get('feed-position') ?? undefined };
    },
    async getPreset(slug, revision) {
      const res = await call(slugPath(slug), revision === undefined ? {} : { 'if-none-match': `"${revision}"` });
      if (res.status === 304) return 'unchanged';
      if (res.status === 404) return null;
      if (res.status !== 200) return fail(res, `GET preset ${slug}`);
      const etag = REVISION_ETAG.exec(res.headers.get('etag') ?? '');
      if (!etag) throw new PresetServiceError(res.status, `GET preset ${slug}: no revision ETag`);
      return { view: ((await res.json()) as { data: PresetView }).data, revision: BigInt(etag[1]!) };
    },
    async getVersion(slug, number) {
      const res = await call(`${slugPath(slug)}/versions/${number}`);
      if (res.status === 404) return null;
      if (res.status !== 200) return fail(res, `GET version ${number} of ${slug}`);
      return ((await res.json()) as { data: VersionView }).data;
    },
    async latestVersion(slug) {
      // Versions are listed ascending: the count says where the last one is.
      const first = await versionsPage(slug, 0);
      if (!first || first.total_count === 0) return null;
      if (first.total_count === 1) return first.data[0] ?? null;
      return (await versionsPage(slug, first.total_count - 1))?.data[0] ?? null;
    },
    async reportUsage(counts) {
      const send = (rows: ReportedUsage[]) =>
        fetch(`${base}/api/v1/usage`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ counts: rows }),
        });
      let refused: PresetServiceError | undefined;
      for (let i = 0; i < counts.length; i += REPORT_SIZE) {
        const rows = counts.slice(i, i + REPORT_SIZE);
        let res = await send(rows);
        if (res.status === 400) {
          // Counts the service will never take (a label removed since, an hour past the window): the
          // rest are sent again without them, and they are dropped, not kept for ever.
          const { named, error } = await refusedCounts(res);
          refused = error;
          const kept = rows.filter((_, n) => !named.has(n));
          if (named.size === 0 || kept.length === 0) continue;
          res = await send(kept);
          if (res.status === 400) {
            refused = (await refusedCounts(res)).error;
            continue;
          }
        }
        if (res.status !== 204) await fail(res, 'POST /api/v1/usage');
      }
      return refused;
    },
    openFeed(lastEventId, signal) {
      return fetch(`${base}/api/v1/events`, {
        headers: { authorization, accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
        signal,
      });
    },
  };
};
