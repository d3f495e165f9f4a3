/**
 * Shared by the benchmark and the soak test: start a server as a child process on a free
 * loopback port, wait until it is ready, read its peak RSS, load it with autocannon, stats.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const HOST = '127.0.0.1';
export const API_KEY = `pk_bench_${randomUUID().replace(/-/g, '')}`;
export const WORKSPACE_ID = randomUUID();
export const AUTH = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `presets-${prefix}-`));

/**
 * A keys file with one key for the bench's workspace, with the scopes every release knows (a
 * `--compare` checkout reads it too), and any `extraScopes` a newer scenario needs.
 */
export const writeKeysFile = (dir: string, extraScopes: string[] = []): string => {
  const file = join(dir, 'bench-keys.json');
  writeFileSync(
    file,
    JSON.stringify({
      keys: [
        {
          key: API_KEY,
          user_id: 'bench',
          workspace_id: WORKSPACE_ID,
          scopes: ['presets:read', 'presets:write', 'webhooks:manage', ...extraScopes],
        },
      ],
    }),
  );
  return file;
};

export const freePort = (): Promise<number> =>
  new Promise((res, rej) => {
    const server = createServer();
    server.once('error', rej);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => res(port));
    });
  });

export interface Child {
  pid: number;
  url: string;
  port: number;
  stop(): Promise<number | null>;
  output(): string;
  /** Milliseconds from the spawn to the first 200 of the ready path (polled every 50 ms). */
  readyMs: number;
}

const SERVICE_ENTRY = join('dist', 'src', 'main.js');

/**
 * The node arguments a build's `npm start` gives its service (`node <args> dist/src/main.js` in its
 * package.json), so that the bench runs each build, this one or a `--compare` checkout, as it is
 * meant to run. Empty for a build whose start script gives none, and for any other script.
 */
export const startArgs = (script: string): string[] => {
  const entry = resolve(ROOT, script);
  if (!entry.endsWith(SERVICE_ENTRY)) return [];
  const pkg = JSON.parse(readFileSync(join(entry.slice(0, -SERVICE_ENTRY.length), 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  return parseStartArgs(pkg.scripts?.start ?? '');
};
/** `node --a --b=1 dist/src/main.js` → ['--a', '--b=1']; a start script of another shape → []. */
export const parseStartArgs = (start: string): string[] => {
  const m = /^node((?:\s+-\S+)*)\s+dist\/src\/main\.js$/.exec(start.trim());
  return m ? m[1]!.trim().split(/\s+/).filter(Boolean) : [];
};

/**
 * Starts `node [nodeArgs] script` with `env` + PORT, resolves once GET `readyPath` (/health/ready) is
 * 200. A build's service (its dist/src/main.js) gets its `npm start` arguments first (`startArgs`).
 */
export const startChild = async (
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  readyPath = '/health/ready',
): Promise<Child> => {
  const port = await freePort();
  const spawnedAt = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...startArgs(script), ...nodeArgs, resolve(ROOT, script)], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const url = `http://${HOST}:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) throw new Error(`${script} exited before it was ready:\n${tail}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} not ready within 30 s:\n${tail}`);
    }
    const ok = await fetch(`${url}${readyPath}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(50);
  }
  const readyMs = performance.now() - spawnedAt;
  return {
    readyMs,
    pid: child.pid!,
    url,
    port,
    output: () => tail,
    stop: async () => {
      if (gone) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A /proc/<pid>/status field in MB (10^6 bytes): VmHWM is the peak resident set, VmRSS the current. */
export const procMb = (pid: number, field: 'VmHWM' | 'VmRSS'): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} for pid ${pid}`);
  return (Number(m[1]) * 1024) / 1e6;
};

/** Clock ticks per second of /proc's CPU times (100 on every common Linux; asked once). */
let ticksPerSecond: number | undefined;
/** CPU time (user + system, all threads) a process has used so far, in ms: /proc/<pid>/stat. */
export const procCpuMs = (pid: number): number => {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond; // utime, stime
};

/**
 * Runs `measure` and returns its result with the CPU time per request it cost the target process
 * and this one (the load generator), in µs: the cores they share are the budget of both.
 */
export const withCpu = async <R extends LoadResult>(pid: number, measure: () => Promise<R>): Promise<R & CpuPerRequest> => {
  const [target, self] = [procCpuMs(pid), process.cpuUsage()];
  const result = await measure();
  const used = process.cpuUsage(self);
  const per = (ms: number) => (result.requests > 0 ? (ms * 1000) / result.requests : NaN);
  return { ...result, cpuUsPerRequest: per(procCpuMs(pid) - target), loadGenCpuUsPerRequest: per((used.user + used.system) / 1000) };
};
export interface CpuPerRequest {
  cpuUsPerRequest: number;
  loadGenCpuUsPerRequest: number;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

export const machine = () => ({
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
});

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
  statuses: Record<string, number>;
}

/** One autocannon run; counts every status code seen (a 202 is a 2xx but says the read model lagged). */
export const load = (opts: autocannon.Options, onInstance?: (i: autocannon.Instance) => void): Promise<LoadResult> =>
  new Promise((res, rej) => {
    const statuses: Record<string, number> = {};
    const instance = autocannon(opts, (err, r) => {
      if (err) return rej(err);
      res({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors,
        non2xx: r.non2xx,
        requests: r.requests.total,
        statuses,
      });
    });
    instance.on('response', (_c, status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
    onInstance?.(instance);
  });

/** POST or GET outside the measured window (setup); throws unless 200. */
export const call = async (url: string, method: 'GET' | 'POST', body?: string): Promise<unknown> => {
  const r = await fetch(url, { method, headers: AUTH, body });
  if (r.status !== 200) throw new Error(`${method} ${url} answered ${r.status}: ${await r.text()}`);
  return r.json();
};

/** `--name value` flags; numbers only where a default is a number. */
export const flags = <T extends Record<string, number | boolean | string>>(defaults: T, argv = process.argv.slice(2)): T => {
  const out: Record<string, number | boolean | string> = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '');
    if (!(name in defaults))
      throw new Error(
        `unknown flag ${argv[i]} (known: ${Object.keys(defaults)
          .map((k) => `--${k}`)
          .join(' ')})`,
      );
    const d = defaults[name];
    if (typeof d === 'boolean') {
      out[name] = true;
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`${argv[i - 1]} needs a value`);
    out[name] = typeof d === 'number' ? Number(v) : v;
    if (typeof d === 'number' && !Number.isFinite(out[name])) throw new Error(`${argv[i - 1]} needs a number`);
  }
  return out as T;
};

/** Runs `node <args>` in the checkout's root and collects its stdout (whole) and the end of its stderr. */
export const runNode = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; out: string; err: string }>((res) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    child.once('exit', (code) => res({ code, out, err }));
  });
