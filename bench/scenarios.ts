/**
 * The HTTP scenarios (create, version, read), each against a FRESH process of one target (the
 * service or a baseline) with a fresh data directory, so every peak RSS belongs to one scenario.
 */
import type { Client, Options, Request } from 'autocannon';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BODIES } from './bodies';
import {
  API_KEY,
  AUTH,
  call,
  load,
  procMb,
  startChild,
  tempDir,
  withCpu,
  WORKSPACE_ID,
  writeKeysFile,
  type CpuPerRequest,
  type LoadResult,
} from './lib';

export const TARGETS = ['service', 'crud', 'rawKoa'] as const;
/** `compared`: the service as built in another checkout (`npm run bench -- --compare DIR`). */
export type Target = (typeof TARGETS)[number] | 'compared';
export const SCENARIOS = ['create', 'version', 'read'] as const;
export type Scenario = (typeof SCENARIOS)[number];

const SCRIPTS: Record<Target, string> = {
  service: 'dist/src/main.js',
  crud: 'dist/bench/baselines/crud.js',
  rawKoa: 'dist/bench/baselines/rawKoa.js',
  compared: '',
};
/** Points the `compared` target at another checkout's built service. */
export const compareWith = (dir: string) => {
  SCRIPTS.compared = join(resolve(dir), 'dist/src/main.js');
};

export interface Row extends LoadResult, CpuPerRequest {
  scenario: Scenario;
  target: Target;
  peakRssMb: number;
}
export interface ScenarioOptions {
  duration: number;
  connections: number;
  /** Seconds of the same load before the measured window (JIT compilation, caches), not recorded. */
  warmup?: number;
  nodeArgs?: string[];
}

const READ_SLUGS = 100;
let runCounter = 0;

export const startTarget = async (target: Target, nodeArgs: string[] = []) => {
  const dataDir = tempDir(target);
  const env: Record<string, string> =
    target === 'service' || target === 'compared'
      ? // LOG_LEVEL=warn: a request log line per request is not what is measured. Otherwise defaults.
        { DATA_DIR: dataDir, API_KEYS_FILE: writeKeysFile(dataDir), LOG_LEVEL: 'warn' }
      : { DATA_DIR: dataDir, BENCH_API_KEY: API_KEY, BENCH_WORKSPACE_ID: WORKSPACE_ID };
  const child = await startChild(SCRIPTS[target], env, nodeArgs);
  return {
    ...child,
    dataDir,
    async stop() {
      const code = await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (code !== 0) throw new Error(`${target} exited with ${code}:\n${child.output()}`);
    },
  };
};

const post = (path: string, variant: number): Request => ({ method: 'POST', path, headers: AUTH, body: BODIES[variant % BODIES.length] });
export const writePath = (slug: string) => `/api/v1/presets/${slug}/chat/completions`;
/** One connection's requests in a version scenario: the bodies in turn, to one slug. */
export const versionRequests = (slug: string): Request[] => {
  let i = 0;
  return [{ ...post(writePath(slug), 0), setupRequest: (req) => ({ ...req, body: BODIES[i++ % BODIES.length] }) }];
};

/** Autocannon options for one scenario; `prefix` keeps slugs unique across runs and rounds. */
const loadOptions = (scenario: Scenario, url: string, prefix: string, o: ScenarioOptions): Options => {
  const base: Options = { url, connections: o.connections, duration: o.duration, headers: AUTH };
  let n = 0;
  switch (scenario) {
    case 'create': // every request a new slug
      return {
        ...base,
        requests: [
          {
            ...post(writePath(`${prefix}-c0`), 0),
            setupRequest: (req) => {
              const i = n++;
              return { ...req, path: writePath(`${prefix}-c${i}`), body: BODIES[i % BODIES.length] };
            },
          },
        ],
      };
    case 'version': {
      // each connection versions its own slug, so no two writes race
      let client = 0;
      return {
        ...base,
        setupClient: (c: Client) => {
          c.setRequests(versionRequests(`${prefix}-v${client++ % o.connections}`));
        },
      };
    }
    case 'read':
      return {
        ...base,
        requests: [
          {
            method: 'GET',
            path: `/api/v1/presets/${prefix}-r0`,
            setupRequest: (req) => ({ ...req, path: `/api/v1/presets/${prefix}-r${n++ % READ_SLUGS}` }),
          },
        ],
      };
  }
};

/** Creates what a scenario needs before the measured window (32 slugs to version, 100 to read). */
const setup = async (scenario: Scenario, url: string, prefix: string, connections: number) => {
  const slugs =
    scenario === 'version'
      ? Array.from({ length: connections }, (_, i) => `${prefix}-v${i}`)
      : scenario === 'read'
        ? Array.from({ length: READ_SLUGS }, (_, i) => `${prefix}-r${i}`)
        : [];
  for (const [i, slug] of slugs.entries()) await call(`${url}${writePath(slug)}`, 'POST', BODIES[i % BODIES.length]);
};

export const runScenario = async (scenario: Scenario, target: Target, o: ScenarioOptions): Promise<Row> => {
  const server = await startTarget(target, o.nodeArgs);
  try {
    const prefix = `b${++runCounter}`;
    await setup(scenario, server.url, prefix, o.connections);
    // Writes warm up on slugs of their own: a warm-up's last requests are still being answered when
    // the measured load starts, and a version racing them for a slug would rightly get a 409.
    // Reads warm up on the presets they then read.
    if (o.warmup) {
      const warmPrefix = scenario === 'read' ? prefix : `${prefix}w`;
      if (warmPrefix !== prefix) await setup(scenario, server.url, warmPrefix, o.connections);
      await load(loadOptions(scenario, server.url, warmPrefix, { ...o, duration: o.warmup }));
    }
    const result = await withCpu(server.pid, () => load(loadOptions(scenario, server.url, prefix, o)));
    const peakRssMb = procMb(server.pid, 'VmHWM'); // read while the process is alive, right after the load
    return { scenario, target, ...result, peakRssMb };
  } finally {
    await server.stop();
  }
};
