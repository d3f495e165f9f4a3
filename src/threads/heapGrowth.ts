import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets an old generation grow past what its last full collection left alive before it
 * collects again, for every isolate of the process (V8's flags are process-wide): V8 chooses 10 to
 * 300 % by itself, the more the faster its collections have been, and under a burst of writes the
 * HTTP thread's old generation filled with the caches' replaced entries up to 60–70 MB before it
 * was collected, which took the service's peak RSS past its 200 MB budget. The measurements behind
 * the figure are in docs/performance.md ("The HTTP thread's old generation").
 */
export const HEAP_GROWING_PERCENT = 30;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag a service process sets at start, or undefined when its operator already chose one
 * (`node --heap-growing-percent=N` or `NODE_OPTIONS`): theirs is kept.
 */
export const heapGrowingFlag = (execArgv: readonly string[], nodeOptions = ''): string | undefined =>
  [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => FLAG.test(arg)) ? undefined : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

/** Sets `heapGrowingFlag` for this process, first thing in an entry point (before its heaps have grown). */
export const limitHeapGrowth = (execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): void => {
  const flag = heapGrowingFlag(execArgv, nodeOptions);
  if (flag) setFlagsFromString(flag);
};
