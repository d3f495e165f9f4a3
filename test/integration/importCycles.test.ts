import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import madge from 'madge';

/**
 * No module of the service imports itself back, not even for a type: a cycle is two modules
 * that can only be read together (eventStore.ts ↔ eventFeed.ts was one; the types the ports
 * share now live in src/eventstore/types.ts). madge reads the import graph; type-only imports
 * count, as they do for a reader.
 */
const ROOT = join(__dirname, '..', '..');
const TREES = ['src', 'projections', 'scripts', 'bench'];
const EXTENSIONS = ['ts', 'tsx', 'mts'];
const options = (baseDir: string) => ({ baseDir, fileExtensions: EXTENSIONS, tsConfig: join(ROOT, 'tsconfig.json') });

const sourceFiles = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && EXTENSIONS.some((x) => e.name.endsWith(`.${x}`)) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));

describe('the import graph', () => {
  it('has no cycle in src/, projections/, scripts/ or bench/, and covers every source file there', async () => {
    const graph = await madge(
      TREES.map((t) => join(ROOT, t)),
      options(ROOT),
    );
    expect(graph.circular()).toEqual([]);
    const files = (await Promise.all(TREES.map((t) => sourceFiles(join(ROOT, t))))).flat();
    expect(Object.keys(graph.obj())).toEqual(expect.arrayContaining(files));
  });

  it('would report a cycle made of type-only imports (the check is not blind to them)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'presets-cycles-'));
    try {
      await writeFile(join(dir, 'a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
      await writeFile(join(dir, 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
      const graph = await madge(dir, options(dir));
      expect(graph.circular()).toEqual([['a.ts', 'b.ts']]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
