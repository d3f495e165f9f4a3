import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readFile } from 'node:fs/promises';
import madge from 'madge';
import ts from 'typescript';

/**
 * Layers point one way: no two folders of the service (src/<folder>/, and projections/) import
 * each other, so each can be read knowing only what it imports; and the tests import the code
 * under test by name (#src/…, #support/…: tsconfig.json's paths), so few imports climb three
 * levels or more.
 */
const folderOf = (file: string): string | null => {
  const parts = file.split('/');
  if (parts[0] === 'projections') return 'projections';
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : null;
};
/** Pairs of folders that import each other, from madge's graph (file → the files it imports). */
const foldersImportingEachOther = (graph: Record<string, string[]>): string[] => {
  const edges = new Set<string>();
  for (const [file, deps] of Object.entries(graph)) {
    const from = folderOf(file);
    for (const dep of deps) {
      const to = folderOf(dep);
      if (from && to && from !== to) edges.add(`${from} → ${to}`);
    }
  }
  return [...edges].filter((e) => {
    const [a, b] = e.split(' → ');
    return a! < b! && edges.has(`${b} → ${a}`);
  });
};
const MAX_DEEP_CLIMBS = 20;

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

  it('has no pair of folders that import each other', async () => {
    const graph = await madge(
      ['src', 'projections'].map((t) => join(ROOT, t)),
      options(ROOT),
    );
    expect(foldersImportingEachOther(graph.obj())).toEqual([]);
  });

  it('would report two folders importing each other', () => {
    const graph = {
      'src/a/x.ts': ['src/b/y.ts'],
      'src/b/y.ts': ['src/c/z.ts'],
      'src/c/z.ts': ['src/a/w.ts'],
      'src/b/v.ts': ['src/a/x.ts'],
    };
    expect(foldersImportingEachOther(graph)).toEqual(['src/a → src/b']);
  });

  it(`has at most ${MAX_DEEP_CLIMBS} imports that climb three levels or more (src, projections, scripts, bench and test)`, async () => {
    const files = (await Promise.all([...TREES, 'test'].map((t) => sourceFiles(join(ROOT, t))))).flat();
    const deep: string[] = [];
    for (const file of files) {
      const { importedFiles } = ts.preProcessFile(await readFile(join(ROOT, file), 'utf8'), true, true);
      for (const { fileName } of importedFiles) if (fileName.startsWith('../../../')) deep.push(`${file}: ${fileName}`);
    }
    expect(deep.length).toBeLessThanOrEqual(MAX_DEEP_CLIMBS);
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
