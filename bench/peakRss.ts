/**
 * Preloaded (`node -r dist/bench/peakRss.js script.js`) into a process whose peak RSS the bench
 * wants but cannot read from outside once it has exited: at exit, VmHWM (kB) and the CPU time of
 * all its threads (ms, getrusage) go to BENCH_PEAK_FILE as JSON.
 * Imports nothing else, so it adds nothing to what it measures.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_PEAK_FILE;
if (file) {
  process.on('exit', () => {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    const cpu = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ peakKb: m ? Number(m[1]) : null, cpuMs: (cpu.user + cpu.system) / 1000 }));
  });
}
