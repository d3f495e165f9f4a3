import fc from 'fast-check';
import { pickSplitVersion, randomSplitVersion, splitKeyOf, type SplitShareView, type SplitTarget } from '#src/resolve/split';

/**
 * Picking a version of a split label, as properties over any split and any key: sticky (a key keeps
 * its version while the weights stay), fair (each version's share of many keys is its weight's), and
 * consistent (when one weight grows, no key leaves that version).
 */
const split = fc
  .uniqueArray(fc.integer({ min: 1, max: 50 }), { minLength: 2, maxLength: 10 })
  .chain((versions) =>
    fc.tuple(...versions.map((version) => fc.integer({ min: 1, max: 10_000 }).map((weight): SplitShareView => ({ version, weight })))),
  );
const target = fc.record({
  workspaceId: fc.uuid(),
  slug: fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/),
  label: fc.stringMatching(/^[a-z0-9][a-z0-9_.-]{0,20}$/),
  split,
});
const key = fc.string({ minLength: 1, maxLength: 64, unit: 'binary' });

describe('picking a version of a split label', () => {
  it('picks one of the split’s versions, the same for a key while the weights are the same (in any order, any copy)', () => {
    fc.assert(
      fc.property(target, fc.array(key, { minLength: 1, maxLength: 50 }), (t, keys) => {
        const versions = new Set(t.split.map((s) => s.version));
        const copy: SplitTarget = { ...t, split: [...t.split].reverse().map((s) => ({ ...s })) };
        for (const k of keys) {
          const picked = pickSplitVersion(t, k);
          expect(versions.has(picked)).toBe(true);
          expect(pickSplitVersion(t, k)).toBe(picked);
          expect(pickSplitVersion(copy, k)).toBe(picked);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hashes a key by its UTF-8 bytes, long or short: the same key, made anew, gets the same version', () => {
    fc.assert(
      fc.property(target, fc.string({ minLength: 300, maxLength: 600, unit: 'binary' }), (t, k) => {
        // A copy of the string made anew (not the same object), across the length where the key no longer fits scratch space.
        const copy = [...k].join('');
        expect(pickSplitVersion(t, copy)).toBe(pickSplitVersion(t, k));
        expect(pickSplitVersion(t, `${k}x`.slice(0, -1))).toBe(pickSplitVersion(t, k));
      }),
      { numRuns: 200 },
    );
  });

  it('gives each version its weight’s share of 100,000 random keys, within 1 percentage point', () => {
    fc.assert(
      fc.property(target, fc.integer(), (t, seed) => {
        const counts = new Map<number, number>();
        const N = 100_000;
        for (let i = 0; i < N; i++) {
          const v = pickSplitVersion(t, `user-${seed}-${i}`);
          counts.set(v, (counts.get(v) ?? 0) + 1);
        }
        const total = t.split.reduce((sum, s) => sum + s.weight, 0);
        for (const { version, weight } of t.split) {
          const share = (counts.get(version) ?? 0) / N;
          expect(Math.abs(share - weight / total)).toBeLessThan(0.01);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('moves keys only toward a version whose weight grows: no key leaves it', () => {
    fc.assert(
      fc.property(
        target,
        fc.nat(),
        fc.integer({ min: 1, max: 9_999 }),
        fc.array(key, { minLength: 200, maxLength: 200 }),
        (t, which, growth, keys) => {
          const i = which % t.split.length;
          const grown = t.split.map((s, j) => (j === i ? { ...s, weight: Math.min(10_000, s.weight + growth) } : s));
          const growing = t.split[i]!.version;
          const after: SplitTarget = { ...t, split: grown };
          for (const k of keys) {
            if (pickSplitVersion(t, k) === growing) expect(pickSplitVersion(after, k)).toBe(growing);
            else {
              // A key that moves at all moves to the growing version.
              const now = pickSplitVersion(after, k);
              if (now !== pickSplitVersion(t, k)) expect(now).toBe(growing);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('depends on the workspace, the slug and the label too: another label splits the same keys differently', () => {
    const base: SplitTarget = {
      workspaceId: '7f0f1f3e-3b1c-4c55-9f55-0a6d1c7f1a11',
      slug: 'bot',
      label: 'production',
      split: [
        { version: 1, weight: 1 },
        { version: 2, weight: 1 },
      ],
    };
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    for (const other of [
      { ...base, label: 'staging' },
      { ...base, slug: 'bot2' },
      { ...base, workspaceId: 'another' },
    ]) {
      const differ = keys.filter((k) => pickSplitVersion(base, k) !== pickSplitVersion(other, k)).length;
      // Independent halves: about half the keys differ.
      expect(differ).toBeGreaterThan(400);
      expect(differ).toBeLessThan(600);
    }
  });

  it('draws by weight when there is no key', () => {
    const t: SplitTarget = {
      workspaceId: 'w',
      slug: 's',
      label: 'l',
      split: [
        { version: 3, weight: 95 },
        { version: 4, weight: 5 },
      ],
    };
    expect(randomSplitVersion(t, () => 0)).toBe(3);
    expect(randomSplitVersion(t, () => 0.949)).toBe(3);
    expect(randomSplitVersion(t, () => 0.951)).toBe(4);
    expect(randomSplitVersion(t, () => 0.999999)).toBe(4);
  });
});

describe('the split key of a request', () => {
  it('is the header, else the body’s caller id by format, else none', () => {
    expect(splitKeyOf('chat_completions', { user: 'u1' }, 'h1')).toEqual({ key: 'h1', source: 'header' });
    expect(splitKeyOf('chat_completions', { user: 'u1' }, undefined)).toEqual({ key: 'u1', source: 'user' });
    expect(splitKeyOf('chat_completions', { user: '' }, '')).toBeUndefined();
    expect(splitKeyOf('messages', { metadata: { user_id: 'm1' } }, undefined)).toEqual({ key: 'm1', source: 'metadata.user_id' });
    expect(splitKeyOf('messages', { user: 'not-a-messages-field' }, undefined)).toBeUndefined();
    expect(splitKeyOf('responses', { user: 'r1', safety_identifier: 's1' }, undefined)).toEqual({ key: 'r1', source: 'user' });
    expect(splitKeyOf('responses', { safety_identifier: 's1' }, undefined)).toEqual({ key: 's1', source: 'safety_identifier' });
    expect(splitKeyOf('chat_completions', { safety_identifier: 's1' }, undefined)).toBeUndefined();
    expect(splitKeyOf('responses', {}, undefined)).toBeUndefined();
  });
});
