import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets an old generation grow past what its last full collection left alive before it
 * collects again, for every isolate of the process (V8's flags are process-wide): V8 chooses 10 to
 * 300 % by itself, the more the faster its collections have been, and under a burst of writes the
 * HTTP thread's old generation filled with requests' objects promoted across their awaits up to
 * 60–70 MB before it was collected, which took the service's peak RSS past its 200 MB budget. 30 %
 * kept it lower still, but made a consumer group's drain ~15 % slower; at 100 % the drain's extra
 * full collections came from one object literal V8 had pretenured (src/eventstore/sqlite/feedEvent.ts),
 * not from the flag's figure. The measurements behind it are in docs/performance.md ("Thread heaps
 * and caches", "Consumer groups and metrics") and its git history.
 */
export const HEAP_GROWING_PERCENT = 100;

const GROWING = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag a service process sets at start, or undefined when its operator already gave node
 * one (`node --heap-growing-percent=N dist/src/main.js`; 0 is V8's own choice): theirs is kept.
 * Node does not take V8 flags from NODE_OPTIONS, so node's arguments are the one place to look.
 */
export const heapGrowingFlag = (execArgv: readonly string[]): string | undefined =>
  execArgv.some((arg) => GROWING.test(arg)) ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

/**
 * Heap sizes given to node (`--max-semi-space-size`, `--max-old-space-size`, on its command line or
 * in NODE_OPTIONS) size the entry thread's heap, which V8 made before any code ran, and would also
 * override every worker's own `resourceLimits` (THREAD_HEAPS). Set back to V8's "not given" once the
 * entry thread has its heap, they leave each worker to its own limits. `npm start` and the image give
 * `--max-semi-space-size=8` this way: the HTTP thread's young generation at half V8's default, so
 * that a burst of writes keeps the service under its memory budget (docs/performance.md, "Thread
 * heaps and caches").
 */
export const ENTRY_THREAD_ONLY = ['--max-semi-space-size=0', '--max-old-space-size=0'] as const;

/** The V8 flags an entry point sets, first thing (before its heaps have grown or a worker started). */
export const heapFlags = (execArgv: readonly string[]): string[] => {
  const growing = heapGrowingFlag(execArgv);
  return [...(growing ? [growing] : []), ...ENTRY_THREAD_ONLY];
};

/** Sets `heapFlags` for this process. */
export const setHeapFlags = (execArgv: readonly string[] = process.execArgv): void => {
  for (const flag of heapFlags(execArgv)) setFlagsFromString(flag);
};
