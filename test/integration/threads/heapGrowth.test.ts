import { execFileSync } from 'node:child_process';
import { HEAP_GROWING_PERCENT } from '../../../src/threads/heapGrowth';

/** The flag the service sets is one node accepts as an argument, the one way an operator can give another (docs: README, Configuration). */
describe('heap growth flag', () => {
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

  it('is taken by node as an argument, and refused in NODE_OPTIONS (so the docs must not offer that)', () => {
    expect(execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")']).toString()).toBe('ok');
    expect(() => execFileSync(process.execPath, ['-e', '0'], { env: { ...process.env, NODE_OPTIONS: flag }, stdio: 'pipe' })).toThrow(
      /not allowed in NODE_OPTIONS/,
    );
  });
});
