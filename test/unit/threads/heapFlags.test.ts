import { parseStartArgs } from '#bench/lib';
import { ENTRY_THREAD_ONLY, HEAP_GROWING_PERCENT, heapFlags, heapGrowingFlag } from '#src/threads/heapFlags';

/** The service bounds how far V8 lets its heaps grow between collections, unless its operator chose otherwise. */
describe('heap growth', () => {
  const ours = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

  it('sets its own growth when node was given none', () => {
    expect(heapGrowingFlag([])).toBe(ours);
    expect(heapGrowingFlag(['--enable-source-maps', '--max-old-space-size=512'])).toBe(ours);
  });

  it('keeps the growth an operator gave node, in either spelling', () => {
    expect(heapGrowingFlag(['--heap-growing-percent=50'])).toBeUndefined();
    expect(heapGrowingFlag(['--enable-source-maps', '--heap_growing_percent=0'])).toBeUndefined();
  });

  it('is not fooled by a flag that only starts the same way', () => {
    expect(heapGrowingFlag(['--heap-growing-percentile=5'])).toBe(ours);
  });
});

/** Heap sizes given to node are the entry thread's: every worker keeps its own limits (THREAD_HEAPS). */
describe('heap sizes given to node', () => {
  it('are set back to "not given" at start, whatever node was given', () => {
    for (const argv of [[], ['--max-semi-space-size=8'], ['--heap-growing-percent=50', '--max-old-space-size=300']]) {
      expect(heapFlags(argv)).toEqual(expect.arrayContaining(['--max-semi-space-size=0', '--max-old-space-size=0']));
    }
    expect(heapFlags(['--heap-growing-percent=50'])).toEqual([...ENTRY_THREAD_ONLY]);
  });
});

/** The bench reads a build's start arguments from its `npm start` script. */
describe('start arguments', () => {
  it('are the flags between node and the entry, none for a script of another shape', () => {
    expect(parseStartArgs('node --a --b=1 dist/src/main.js')).toEqual(['--a', '--b=1']);
    expect(parseStartArgs('node dist/src/main.js')).toEqual([]);
    expect(parseStartArgs('tsx src/main.ts')).toEqual([]);
  });
});
