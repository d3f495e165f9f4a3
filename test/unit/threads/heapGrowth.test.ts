import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../../src/threads/heapGrowth';

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
