import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * A newcomer reads a module in one sitting: no file under src/ or projections/ is longer than
 * 400 lines unless it says why at its top, in a comment holding "longer than 400 lines because".
 */
const ROOT = join(__dirname, '..', '..');
const MAX_LINES = 400;
const REASON = 'longer than 400 lines because';

describe('the source files', () => {
  it(`are at most ${MAX_LINES} lines long, or say why at their top`, async () => {
    const unexplained: string[] = [];
    for (const tree of ['src', 'projections']) {
      for (const entry of await readdir(join(ROOT, tree), { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.(ts|tsx|mts)$/.test(entry.name)) continue;
        const path = join(entry.parentPath, entry.name);
        const lines = (await readFile(path, 'utf8')).split('\n');
        if (lines.length > MAX_LINES && !lines.slice(0, 40).join('\n').includes(REASON))
          unexplained.push(`${relative(ROOT, path)} (${lines.length} lines)`);
      }
    }
    expect(unexplained).toEqual([]);
  });
});
