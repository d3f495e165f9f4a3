/**
 * The service over the rebuild's data set (100,000 presets, 1,000,000 events): the same read and
 * version load as on a fresh data directory, so its peak RSS and speed can be set beside those.
 * What could grow with the number of presets is bounded by configuration (SQLite page caches,
 * the command handler's LRU of 10,000 folded states); this shows it does not.
 */
import type { Client, Options } from 'autocannon';
import { AUTH, load, procMb, startChild, withCpu, writeKeysFile, type CpuPerRequest, type LoadResult } from './lib';
import { versionRequests } from './scenarios';

export interface ScaleRow extends LoadResult, CpuPerRequest {
  scenario: 'read' | 'version';
  presets: number;
  peakRssMb: number;
  /** Seconds from the spawn of the process that served the row to its first 200 of /health/ready. */
  startSeconds: number;
}

const randomSlug = (presets: number) => `p${Math.floor(Math.random() * presets)}`;

export const runAtScale = async (
  dataDir: string,
  presets: number,
  o: { duration: number; warmup?: number; connections: number },
): Promise<ScaleRow[]> => {
  const server = await startChild('dist/src/main.js', { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), LOG_LEVEL: 'warn' });
  try {
    const base: Options = { url: server.url, connections: o.connections, duration: o.duration, headers: AUTH };
    // Reads of random presets: most are not in any cache.
    const read: Options = {
      ...base,
      requests: [
        { method: 'GET', path: `/api/v1/presets/p0`, setupRequest: (req) => ({ ...req, path: `/api/v1/presets/${randomSlug(presets)}` }) },
      ],
    };
    // Each connection versions its own random existing preset (10 versions already): no two race.
    const taken = new Set<string>();
    const version: Options = {
      ...base,
      setupClient: (c: Client) => {
        if (taken.size >= presets) taken.clear(); // fewer presets than connections: some will race
        let slug = randomSlug(presets);
        while (taken.has(slug)) slug = randomSlug(presets);
        taken.add(slug);
        c.setRequests(versionRequests(slug));
      },
    };
    const rows: ScaleRow[] = [];
    for (const [scenario, options] of [
      ['read', read],
      ['version', version],
    ] as const) {
      if (o.warmup) await load({ ...options, duration: o.warmup });
      const result = await withCpu(server.pid, () => load(options));
      rows.push({ scenario, presets, ...result, peakRssMb: procMb(server.pid, 'VmHWM'), startSeconds: server.readyMs / 1000 });
    }
    return rows;
  } finally {
    const code = await server.stop();
    // eslint-disable-next-line no-unsafe-finally -- a service that did not stop cleanly makes the figures suspect, whatever came before
    if (code !== 0) throw new Error(`service on the rebuild's data exited with ${code}:\n${server.output()}`);
  }
};
