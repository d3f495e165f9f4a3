import { DELIVERY_PAGE_BYTES, deliveryLimits } from '#src/webhooks/delivererThread';
import { THREAD_HEAPS } from '#src/threads/thread';

/** The delivery thread sized for the largest event BODY_LIMIT_BYTES lets a preset be. */
describe('deliveryLimits', () => {
  const MIB = 1024 * 1024;

  it('starts catch-up with as many of the largest events as a page holds: at least one, at most 16', () => {
    expect(DELIVERY_PAGE_BYTES).toBe(4 * MIB);
    expect([1024, 256 * 1024, MIB, 2 * MIB, 4 * MIB, 8 * MIB, 64 * MIB].map((limit) => deliveryLimits(limit).firstPage)).toEqual([
      16, 16, 4, 2, 1, 1, 1,
    ]);
  });

  it('keeps the 128 MB old generation up to a 10 MiB body limit, and grows it by six times the limit past that', () => {
    const old = (limit: number) => deliveryLimits(limit).heap.maxOldGenerationSizeMb;
    expect([MIB, 8 * MIB, 10 * MIB].map(old)).toEqual([128, 128, 128]);
    expect(old(16 * MIB)).toBe(64 + 96);
    expect(old(64 * MIB)).toBe(64 + 384);
    expect(deliveryLimits(64 * MIB).heap.maxYoungGenerationSizeMb).toBe(THREAD_HEAPS.deliverer.maxYoungGenerationSizeMb);
  });
});
