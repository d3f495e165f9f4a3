import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets an old generation grow past what its last full collection left alive before it
 * collects again, for every isolate of the process (V8's flags are process-wide): V8 chooses 10 to
 * 300 % by itself, the more the faster its collections have been, and under a burst of writes the
 * HTTP thread's old generation filled with requests' objects promoted across their awaits up to
 * 60–70 MB before it was collected, which took the service's peak RSS past its 200 MB budget. 30 %
 * kept it lower still, but made a consumer group's drain ~15 % slower; at 100 % the drain's extra
 * full collections came from one object literal V8 had pretenured (src/eventstore/sqlite/feedEvent.ts),
 * not from the flag's figure. The measurements behind it are in docs/performance.md ("The HTTP
 * thread's old generation", "The drain and V8's pretenuring").
 */
export const HEAP_GROWING_PERCENT = 100;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag a service process sets at start, or undefined when its operator already gave node
 * one (`node --heap-growing-percent=N dist/src/main.js`; 0 is V8's own choice): theirs is kept.
 * Node does not take V8 flags from NODE_OPTIONS, so node's arguments are the one place to look.
 */
export const heapGrowingFlag = (execArgv: readonly string[]): string | undefined =>
  execArgv.some((arg) => FLAG.test(arg)) ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

/** Sets `heapGrowingFlag` for this process, first thing in an entry point (before its heaps have grown). */
export const limitHeapGrowth = (execArgv: readonly string[] = process.execArgv): void => {
  const flag = heapGrowingFlag(execArgv);
  if (flag) setFlagsFromString(flag);
};
