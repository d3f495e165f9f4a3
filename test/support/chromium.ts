import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type ChromiumClass from '@sparticuz/chromium' with { 'resolution-mode': 'import' };

// The package's own types are its ES module's; its CommonJS build (what require loads) exports the same class.
const Chromium = createRequire(__filename)('@sparticuz/chromium') as typeof ChromiumClass;

/**
 * Which Chromium the browser tests drive, found the same way on a laptop and in CI, with nothing
 * but npm installed:
 *   1. `CHROMIUM_PATH`, when set (it must name an executable);
 *   2. a system Chromium or Chrome: the usual Debian/Ubuntu paths, then those names on PATH;
 *   3. the Chromium shipped inside the `@sparticuz/chromium` dev dependency (Linux x64 only),
 *      unpacked once into the temporary directory.
 * Anywhere else (macOS, Windows, Linux arm64 without a system browser) the answer is a message
 * saying how to point CHROMIUM_PATH at an installed Chrome: the browser tests fail with it rather
 * than being skipped.
 */
export type BrowserSource = 'CHROMIUM_PATH' | 'system' | 'npm';

export type BrowserPick =
  { kind: 'path'; source: Exclude<BrowserSource, 'npm'>; executablePath: string } | { kind: 'npm' } | { kind: 'none'; message: string };

export interface BrowserSearch {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  arch: string;
  isExecutable(path: string): boolean;
}

/** Where a system Chromium or Chrome usually is, before PATH is searched for these names. */
export const SYSTEM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
export const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The choice itself: pure, given what the machine has. */
export const pickBrowser = ({ env, platform, arch, isExecutable }: BrowserSearch): BrowserPick => {
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    return isExecutable(configured)
      ? { kind: 'path', source: 'CHROMIUM_PATH', executablePath: configured }
      : { kind: 'none', message: `CHROMIUM_PATH is ${configured}, which is not an executable file` };
  }
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .flatMap((dir) => SYSTEM_NAMES.map((name) => join(dir, name)));
  const system = [...SYSTEM_PATHS, ...onPath].find(isExecutable);
  if (system) return { kind: 'path', source: 'system', executablePath: system };
  if (platform === 'linux' && arch === 'x64') return { kind: 'npm' };
  return {
    kind: 'none',
    message:
      `no Chromium found, and the npm one (@sparticuz/chromium) exists for Linux x64 only (this is ${platform} ${arch}): ` +
      'install Chrome or Chromium and set CHROMIUM_PATH to its binary, e.g. ' +
      'CHROMIUM_PATH="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" npm test',
  };
};

export interface FoundBrowser {
  source: BrowserSource;
  executablePath: string;
  /** Extra command-line switches this build needs. */
  args: string[];
  /** Environment for the browser process (the npm build brings its own fonts). */
  env?: Record<string, string>;
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Of @sparticuz/chromium's own switches, the ones a headless test browser needs (no zygote or
 * sandbox, software GL). Left out: `--single-process`, which brings the browser down when a test
 * closes a context, and `--disable-web-security` and its kin, which would let a page load what the
 * console's CSP and same-origin tests must see refused.
 */
const NPM_ARGS = new Set([
  '--no-zygote',
  '--no-sandbox',
  '--disable-setuid-sandbox',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--font-render-hinting=none',
  "--headless='shell'",
]);

/**
 * Finds the browser (see the top of this file). The npm build is unpacked into the temporary
 * directory on first use; jest's global setup calls this once before any worker, so parallel
 * workers never unpack it at the same time.
 */
export const findBrowser = async (): Promise<FoundBrowser> => {
  const pick = pickBrowser({ env: process.env, platform: process.platform, arch: process.arch, isExecutable });
  if (pick.kind === 'none') throw new Error(`browser tests: ${pick.message}`);
  if (pick.kind === 'path') return { source: pick.source, executablePath: pick.executablePath, args: [] };
  const executablePath = await Chromium.executablePath();
  const fonts = join(tmpdir(), 'fonts');
  return {
    source: 'npm',
    executablePath,
    args: Chromium.args.filter((arg) => NPM_ARGS.has(arg)),
    env: existsSync(join(fonts, 'fonts.conf')) ? { FONTCONFIG_PATH: fonts } : undefined,
  };
};
