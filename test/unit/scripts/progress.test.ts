import { createProgress } from '#scripts/progress';

describe('progress without a terminal', () => {
  it('prints a line every 2 s with the rate and an estimated total', () => {
    let t = 0;
    const lines: string[] = [];
    const progress = createProgress({ label: 'rebuild', head: 1000n, log: (l) => lines.push(l), now: () => t });
    t = 1000;
    progress.update(100, 1n, 100n); // too soon
    t = 2000;
    progress.update(250, 1n, 250n);
    expect(lines).toEqual(['rebuild: 250/1000 events (25%), 125 events/s, ETA 6 s']);
  });
});
