// Builds the package from the repository's own source: src/client (the client and the presets
// command) and the pure core it imports, bundled by rolldown (Vite's bundler) into dist/index.js
// and dist/bin.js, with the package's dependencies left to npm; declarations by tsc into dist/types.
// An import of a package this package does not depend on fails the build.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dependencies = Object.keys(JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies);
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const packageOf = (id) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');

rmSync(join(here, 'dist'), { recursive: true, force: true });
const bundle = await rolldown({
  input: { index: join(root, 'src/client/index.ts'), bin: join(root, 'src/client/bin.ts') },
  platform: 'node',
  logLevel: 'warn',
  external: (id) => {
    if (builtins.has(id)) return true;
    if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
    if (dependencies.includes(packageOf(id))) return true;
    throw new Error(`src/client imports ${id}, which is not a dependency of packages/client/package.json`);
  },
});
await bundle.write({ dir: join(here, 'dist'), format: 'cjs', entryFileNames: '[name].js', chunkFileNames: '[name].js', sourcemap: false });
await bundle.close();

const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.types.json')], { cwd: root, stdio: 'inherit' });
