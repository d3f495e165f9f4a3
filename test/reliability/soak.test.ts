import { spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * The 30-second form of the soak (bench/soak.ts, `npm run soak` runs 5 minutes): a steady mixed
 * load on a real service process must end with error rate 0, p99 stable and RSS flat. The soak
 * itself decides those three and exits non-zero when one fails; this test runs it and reads its
 * verdict lines. It needs the build the jest globalSetup makes.
 */
const ROOT = join(__dirname, '..', '..');

it('30 s of steady load: error rate 0, p99 stable, RSS flat', async () => {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/bench/soak.js'), '--duration', '30', '--interval', '10', '--warmup', '5', '--rate', '100'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(out).toMatch(/^PASS {2}error rate 0/m);
  expect(out).toMatch(/^PASS {2}p99 stable/m);
  expect(out).toMatch(/^PASS {2}RSS flat/m);
  expect(code).toBe(0);
}, 120_000);
