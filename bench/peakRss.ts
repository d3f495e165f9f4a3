/**
 * Preloaded (`node -r dist/bench/peakRss.js script.js`) into a process whose peak RSS the bench
 * wants but cannot read from outside once it has exited: at exit, VmHWM (kB) goes to BENCH_PEAK_FILE.
 * Imports nothing else, so it adds nothing to what it measures.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_PEAK_FILE;
if (file) {
  process.on('exit', () => {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    writeFileSync(file, m ? m[1]! : '');
  });
}
