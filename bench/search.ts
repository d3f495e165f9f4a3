/**
 * `npm run bench:search -- [sizes]`: what `GET /api/v1/presets?q=` costs the SQLite read model, by
 * the number of presets in one workspace (10,000 and 100,000 by default). For each size, a fresh
 * read model of that many one-version presets named "Preset number <i>", then 30 calls of
 * `listPresets` (25 a page, active and disabled, as the API's default) per search; medians and p90s.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteReadModel } from '../projections/readmodel/sqlite';
import type { ProjectionChange, VersionView } from '../projections/readmodel/readModel';
import { tempDir } from './lib';

const RUNS = 30;
const SEARCHES: Array<[string, string | undefined]> = [
  ['no q', undefined],
  ['q matching every preset', 'preset'],
  ['q matching few ("number 99")', 'number 99'],
  ['q matching none', 'zzz'],
];

const run = async (size: number) => {
  const dir = tempDir('search');
  const readModel = openSqliteReadModel({ file: join(dir, 'readmodel.db') });
  const workspace = randomUUID();
  const changes: ProjectionChange[] = [];
  for (let i = 0; i < size; i++) {
    const id = randomUUID();
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const version: VersionView = {
      id: randomUUID(),
      preset_id: id,
      version: 1,
      config: { model: 'm', temperature: 0.5 },
      system_prompt: 'p'.repeat(200),
      template_format: 'none',
      variables: null,
      messages: [],
      note: null,
      source_format: 'chat_completions',
      creator_id: 'u',
      created_at: at,
      updated_at: at,
    };
    changes.push(
      { kind: 'putVersion', version },
      {
        kind: 'putPreset',
        record: {
          revision: 0n,
          view: {
            id,
            name: `Preset number ${i}`,
            slug: `preset-${i}`,
            description: null,
            status: 'active',
            status_updated_at: null,
            created_at: at,
            updated_at: at,
            creator_user_id: 'u',
            workspace_id: workspace,
            labels: {},
            designated_version_id: version.id,
            designated_version: version,
          },
        },
      },
    );
  }
  await readModel.apply(changes, { name: 'bench', position: 1n });
  for (const [label, search] of SEARCHES) {
    const ms: number[] = [];
    let total = 0;
    for (let r = 0; r < RUNS; r++) {
      const start = process.hrtime.bigint();
      total = (await readModel.listPresets(workspace, { offset: 0, limit: 25 }, ['active', 'disabled'], search)).total;
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
    console.log(`${size.toLocaleString('en')} presets, ${label} (${total} found): median ${at(0.5)} ms, p90 ${at(0.9)} ms`);
  }
  await readModel.close();
  rmSync(dir, { recursive: true, force: true });
};

const main = async () => {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  for (const size of sizes.length > 0 ? sizes : [10_000, 100_000]) await run(size);
};

void main();
