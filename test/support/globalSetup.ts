import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Builds dist/ once per jest run, for the suites that start the real service as a child process
 * (`node dist/src/main.js`): crash, shutdown and disk tests. Once here rather than in each suite's
 * beforeAll, so parallel workers never build the same files at once. Incremental, so a run
 * after an unchanged tree takes a second or two. Type errors do not stop the run (tsc still
 * emits, and `npm test` type-checks first); a missing entry point does.
 */
export default function globalSetup(): void {
  const root = join(__dirname, '..', '..');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const out = String((error as { stdout?: Buffer }).stdout ?? '');
    process.stderr.write(`\nglobalSetup: tsc reported errors (dist/ was still written):\n${out.slice(0, 2000)}\n`);
  }
  if (!existsSync(join(root, 'dist', 'src', 'main.js'))) throw new Error('globalSetup: the build did not produce dist/src/main.js');
}
