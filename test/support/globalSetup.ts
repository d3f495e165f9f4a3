import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findBrowser } from './chromium';

/**
 * Builds dist/ once per jest run, for the suites that start the real service as a child process
 * (`node dist/src/main.js`): crash, shutdown and disk tests. Once here rather than in each suite's
 * beforeAll, so parallel workers never build the same files at once. Incremental, so a run
 * after an unchanged tree takes a second or two. Type errors do not stop the run (tsc still
 * emits, and `npm test` type-checks first); a missing entry point does.
 *
 * The web console (dist/console/, for the browser tests) is built here too, when its sources or
 * the lock file are newer than the last build, and the browser the browser tests drive is found
 * (./chromium.ts) once.
 */
export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (error) {
    const out = String((error as { stdout?: Buffer }).stdout ?? '');
    process.stderr.write(`\nglobalSetup: tsc reported errors (dist/ was still written):\n${out.slice(0, 2000)}\n`);
  }
  if (!existsSync(join(root, 'dist', 'src', 'main.js'))) throw new Error('globalSetup: the build did not produce dist/src/main.js');
  buildConsole(root);
  // Unpacks the npm Chromium (when that is the browser the tests will use) before any worker starts.
  await findBrowser();
}

const newestChange = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
};

const buildConsole = (root: string) => {
  const built = join(root, 'dist', 'console', 'index.html');
  const sources = Math.max(newestChange(join(root, 'src', 'console')), statSync(join(root, 'package-lock.json')).mtimeMs);
  if (existsSync(built) && statSync(built).mtimeMs > sources) return;
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  try {
    execFileSync(process.execPath, [vite, 'build', '--config', 'src/console/vite.config.mts', '--logLevel', 'warn'], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`globalSetup: the console did not build:\n${String(stdout ?? '')}${String(stderr ?? '')}`.slice(0, 4000), {
      cause: error,
    });
  }
};
