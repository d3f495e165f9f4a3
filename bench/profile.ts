/**
 * Where the service's CPU time goes: self time per function and per module from a V8
 * `.cpuprofile` (written by `node --cpu-prof`). Also a CLI: `node dist/bench/profile.js file.cpuprofile`.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROOT } from './lib';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Node {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export interface Hot {
  name: string;
  where: string;
  selfMs: number;
  percent: number;
  caller?: string;
}
export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  functions: Hot[];
  modules: Hot[];
}

/** node_modules/<pkg>, node:<internal>, or the project file; V8's own buckets as they are. */
const moduleOf = (url: string): string => {
  if (!url) return '(native / V8)';
  const path = url.replace(/^file:\/\//, '');
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (nm) return nm[1]!;
  if (path.startsWith('node:')) return path.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  return relative(ROOT, path).replace(/^dist\//, '');
};

export const summarize = (file: string, top = 15): ProfileSummary => {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, Node>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const label = (f: CallFrame) => `${f.functionName || '(anonymous)'}${f.url ? ` ${moduleOf(f.url)}:${f.lineNumber + 1}` : ''}`;
  const callers = new Map<string, Map<string, number>>();
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const fns = new Map<string, Hot>();
  const mods = new Map<string, Hot>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { callFrame: f } = byId.get(id)!;
    if (f.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    totalUs += us;
    const where = f.url ? `${moduleOf(f.url)}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName}@${where}`;
    const hot = fns.get(key) ?? { name: f.functionName || '(anonymous)', where, selfMs: 0, percent: 0 };
    hot.selfMs += us / 1000;
    fns.set(key, hot);
    // The caller that accounts for most of this function's self time (natives say little alone).
    const up = parent.get(id);
    const byCaller = callers.get(key) ?? new Map<string, number>();
    if (up) byCaller.set(label(up.callFrame), (byCaller.get(label(up.callFrame)) ?? 0) + us);
    callers.set(key, byCaller);
    hot.caller = [...byCaller].sort((a, b) => b[1] - a[1])[0]?.[0];
    const mod = f.url ? moduleOf(f.url) : f.functionName;
    const m = mods.get(mod) ?? { name: mod, where: '', selfMs: 0, percent: 0 };
    m.selfMs += us / 1000;
    mods.set(mod, m);
  }
  const rank = (xs: Iterable<Hot>) =>
    [...xs]
      .map((h) => ({ ...h, selfMs: Math.round(h.selfMs), percent: Math.round((1000 * h.selfMs) / (totalUs / 1000)) / 10 }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top);
  return {
    totalMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    functions: rank(fns.values()),
    modules: rank(mods.values()),
  };
};

export const formatSummary = (s: ProfileSummary, title = 'CPU profile'): string =>
  [
    `${title}: ${s.totalMs} ms busy, ${s.idleMs} ms idle (self time, % of busy)`,
    '  top functions:',
    ...s.functions.map(
      (h) =>
        `    ${h.percent.toFixed(1).padStart(5)}%  ${String(h.selfMs).padStart(6)} ms  ${h.name}  ${h.where}${h.caller ? `  ← ${h.caller}` : ''}`,
    ),
    '  by module:',
    ...s.modules.map((h) => `    ${h.percent.toFixed(1).padStart(5)}%  ${String(h.selfMs).padStart(6)} ms  ${h.name}`),
  ].join('\n');

if (require.main === module) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node dist/bench/profile.js <file.cpuprofile> [top]');
  console.log(formatSummary(summarize(file, Number(process.argv[3] ?? 15))));
}
