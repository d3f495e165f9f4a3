import { randomUUID } from 'node:crypto';
import type { PresetRecord, ProjectionChange, ReadModel, VersionView } from '#projections/readmodel/readModel';

/** What every read model must do. Each test uses fresh workspace ids, so a shared server can hold old data. */
export interface ReadModelFixture {
  readModel: ReadModel;
  cleanup(): Promise<void>;
}

const version = (presetId: string, n: number, at: string): VersionView => ({
  id: randomUUID(),
  preset_id: presetId,
  version: n,
  config: { model: `m-${n}`, temperature: n / 10 },
  system_prompt: `prompt ${n}`,
  template_format: 'none',
  variables: null,
  messages: [],
  note: n === 1 ? null : `note ${n}`,
  source_format: n % 2 === 0 ? 'messages' : 'chat_completions',
  creator_id: 'user-1',
  created_at: at,
  updated_at: at,
});

const record = (
  workspaceId: string,
  slug: string,
  presetId: string,
  v: VersionView,
  revision: bigint,
  createdAt = v.created_at,
): PresetRecord => ({
  revision,
  view: {
    id: presetId,
    name: slug,
    slug,
    description: null,
    status: 'active',
    status_updated_at: null,
    created_at: createdAt,
    updated_at: v.created_at,
    creator_user_id: 'user-1',
    workspace_id: workspaceId,
    labels: {},
    designated_version_id: v.id,
    designated_version: v,
  },
});

const changesFor = (r: PresetRecord): ProjectionChange[] => [
  { kind: 'putVersion', version: r.view.designated_version },
  { kind: 'putPreset', record: r },
];

export const readModelContract = (open: () => Promise<ReadModelFixture>) => {
  let fixture: ReadModelFixture;
  let rm: ReadModel;
  let workspace: string;
  const checkpointName = () => `contract-${workspace}`;

  beforeEach(async () => {
    fixture = await open();
    rm = fixture.readModel;
    workspace = randomUUID();
  });
  afterEach(async () => fixture.cleanup());

  it('stores a preset and its version, and moves the checkpoint with them', async () => {
    const id = randomUUID();
    const v1 = version(id, 1, '2026-01-01T00:00:00.000Z');
    const r1 = record(workspace, 'alpha', id, v1, 0n);
    expect(await rm.checkpoint(checkpointName())).toBeNull();
    await rm.apply(changesFor(r1), { name: checkpointName(), position: 17n });
    expect(await rm.getPreset(workspace, 'alpha')).toEqual(r1);
    expect(await rm.getVersion(id, 1)).toEqual(v1);
    expect(await rm.getVersion(id, 2)).toBeNull();
    expect(await rm.getPreset(workspace, 'beta')).toBeNull();
    expect(await rm.getPreset(randomUUID(), 'alpha')).toBeNull();
    expect(await rm.checkpoint(checkpointName())).toBe(17n);
  });

  it('serves the same document as JSON, with its revision, for answers that pass it through', async () => {
    const id = randomUUID();
    const r1 = record(workspace, 'alpha', id, version(id, 1, '2026-01-01T00:00:00.000Z'), 3n);
    await rm.apply(changesFor(r1), { name: checkpointName(), position: 4n });
    const served = await rm.getPresetJson(workspace, 'alpha');
    expect(served).toMatchObject({ workspaceId: workspace, slug: 'alpha', revision: 3n });
    expect(JSON.parse(served!.json)).toEqual(r1.view);
    expect(await rm.getPresetJson(workspace, 'beta')).toBeNull();
    expect(await rm.getPresetJson(randomUUID(), 'alpha')).toBeNull();
  });

  it('gives a config back with its keys in the order stored, at every depth, as a document and as JSON', async () => {
    const id = randomUUID();
    const config = {
      temperature: 0.2,
      model: 'm',
      response_format: {
        type: 'json_schema',
        json_schema: {
          strict: true,
          name: 'x',
          // Names a JSON schema may hold that a document store treats apart: `$`-prefixed, dotted.
          schema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { reasoning: { $ref: '#/$defs/r' }, answer: {}, 'a.b': {} },
            $defs: { r: { type: 'string' } },
          },
        },
      },
      provider: { sort: 'price', order: ['b', 'a'] },
    };
    const v1 = { ...version(id, 1, '2026-01-01T00:00:00.000Z'), config };
    await rm.apply(changesFor(record(workspace, 'ordered', id, v1, 0n)), { name: checkpointName(), position: 1n });
    const text = JSON.stringify(config);
    expect(JSON.stringify((await rm.getVersion(id, 1))!.config)).toBe(text);
    expect(JSON.stringify((await rm.getPreset(workspace, 'ordered'))!.view.designated_version.config)).toBe(text);
    const served = JSON.parse((await rm.getPresetJson(workspace, 'ordered'))!.json);
    expect(JSON.stringify(served.designated_version.config)).toBe(text);
  });

  it('keeps checkpoints as exact bigints beyond 2^53', async () => {
    const big = 2n ** 64n * 12345n + 2n ** 53n + 1n;
    await rm.apply([], { name: checkpointName(), position: big });
    expect(await rm.checkpoint(checkpointName())).toBe(big);
  });

  it('is unchanged by a replay of changes it already holds, and never goes back to an older revision', async () => {
    const id = randomUUID();
    const v1 = version(id, 1, '2026-01-01T00:00:00.000Z');
    const v2 = version(id, 2, '2026-01-02T00:00:00.000Z');
    const r1 = record(workspace, 'alpha', id, v1, 0n);
    const r2 = record(workspace, 'alpha', id, v2, 1n, v1.created_at);
    await rm.apply(changesFor(r1), { name: checkpointName(), position: 1n });
    await rm.apply(changesFor(r2), { name: checkpointName(), position: 2n });
    // a crash after the documents but before the checkpoint: the same events come again
    await rm.apply(changesFor(r1), { name: checkpointName(), position: 1n });
    await rm.apply(changesFor(r2), { name: checkpointName(), position: 2n });
    expect(await rm.getPreset(workspace, 'alpha')).toEqual(r2);
    const altered = { ...v1, system_prompt: 'changed by a replay' };
    await rm.apply([{ kind: 'putVersion', version: altered }], { name: checkpointName(), position: 2n });
    expect(await rm.getVersion(id, 1)).toEqual(v1);
    expect((await rm.listVersions(id, { offset: 0, limit: 10 })).total).toBe(2);
  });

  it('lists a workspace’s presets most recently updated first, with paging and a total', async () => {
    const days = ['2026-01-03', '2026-01-01', '2026-01-02'];
    for (const [i, day] of days.entries()) {
      const id = randomUUID();
      await rm.apply(changesFor(record(workspace, `p${i}`, id, version(id, 1, `${day}T00:00:00.000Z`), 0n)), {
        name: checkpointName(),
        position: BigInt(i + 1),
      });
    }
    const elsewhere = randomUUID();
    await rm.apply(changesFor(record(randomUUID(), 'p0', elsewhere, version(elsewhere, 1, '2026-02-01T00:00:00.000Z'), 0n)), {
      name: checkpointName(),
      position: 9n,
    });
    const all = await rm.listPresets(workspace, { offset: 0, limit: 10 });
    expect(all.items.map((p) => p.slug)).toEqual(['p0', 'p2', 'p1']);
    expect(all.total).toBe(3);
    const page = await rm.listPresets(workspace, { offset: 1, limit: 1 });
    expect(page.items.map((p) => p.slug)).toEqual(['p2']);
    expect(page.total).toBe(3);
  });

  it('lists only the statuses asked for, counting what it lists, and keeps each document’s status, labels and notes', async () => {
    const statuses = ['active', 'disabled', 'archived', 'active'] as const;
    for (const [i, status] of statuses.entries()) {
      const id = randomUUID();
      const r = record(workspace, `s${i}`, id, version(id, 2, `2026-01-0${i + 1}T00:00:00.000Z`), 3n);
      const changed: PresetRecord = {
        ...r,
        view: {
          ...r.view,
          status,
          status_updated_at: status === 'active' ? null : '2026-02-01T00:00:00.000Z',
          labels: { production: 2, 'canary.eu-1': 1 },
        },
      };
      await rm.apply(changesFor(changed), { name: checkpointName(), position: BigInt(i + 1) });
    }
    const listed = async (wanted?: Array<(typeof statuses)[number]>) => {
      const page = await rm.listPresets(workspace, { offset: 0, limit: 10 }, wanted);
      return { slugs: page.items.map((p) => p.slug), total: page.total };
    };
    expect(await listed(['active', 'disabled'])).toEqual({ slugs: ['s3', 's1', 's0'], total: 3 });
    expect(await listed(['archived'])).toEqual({ slugs: ['s2'], total: 1 });
    expect(await listed()).toEqual({ slugs: ['s3', 's2', 's1', 's0'], total: 4 });
    expect((await rm.listPresets(workspace, { offset: 1, limit: 1 }, ['active'])).items.map((p) => p.slug)).toEqual(['s0']);
    const archived = (await rm.getPreset(workspace, 's2'))!.view;
    expect(archived).toMatchObject({
      status: 'archived',
      status_updated_at: '2026-02-01T00:00:00.000Z',
      labels: { production: 2, 'canary.eu-1': 1 },
    });
    expect(archived.designated_version.note).toBe('note 2');
    // A later document of the same preset moves it between statuses in the list.
    const moved: PresetRecord = { ...(await rm.getPreset(workspace, 's2'))!, revision: 4n };
    moved.view = { ...moved.view, status: 'active', updated_at: '2026-03-01T00:00:00.000Z' };
    await rm.apply([{ kind: 'putPreset', record: moved }], { name: checkpointName(), position: 9n });
    expect(await listed(['archived'])).toEqual({ slugs: [], total: 0 });
    expect((await listed(['active'])).slugs[0]).toBe('s2');
  });

  it('lists the presets whose slug or name contains a search, ignoring case, with the status filter and paging', async () => {
    const presets = [
      ['support-bot', 'Support bot'],
      ['billing', 'Support for billing'],
      ['summarise', 'Résumé writer'],
      ['other', 'Other'],
      ['a.b', 'Dots'],
    ] as const;
    for (const [i, [slug, name]] of presets.entries()) {
      const id = randomUUID();
      const r = record(workspace, slug, id, version(id, 1, `2026-01-0${i + 1}T00:00:00.000Z`), 0n);
      await rm.apply(changesFor({ ...r, view: { ...r.view, name, status: slug === 'billing' ? 'disabled' : 'active' } }), {
        name: checkpointName(),
        position: BigInt(i + 1),
      });
    }
    const elsewhere = randomUUID();
    await rm.apply(
      changesFor(record(randomUUID(), 'support-elsewhere', elsewhere, version(elsewhere, 1, '2026-02-01T00:00:00.000Z'), 0n)),
      { name: checkpointName(), position: 9n },
    );
    const found = async (search: string, statuses?: Array<'active' | 'disabled'>, page = { offset: 0, limit: 10 }) => {
      const listed = await rm.listPresets(workspace, page, statuses, search);
      return { slugs: listed.items.map((p) => p.slug), total: listed.total };
    };
    expect(await found('SUPPORT')).toEqual({ slugs: ['billing', 'support-bot'], total: 2 }); // slug or name, newest first
    expect(await found('bot')).toEqual({ slugs: ['support-bot'], total: 1 });
    expect(await found('RÉSUMÉ')).toEqual({ slugs: ['summarise'], total: 1 }); // beyond ASCII too
    expect(await found('support', ['active'])).toEqual({ slugs: ['support-bot'], total: 1 });
    expect(await found('support', undefined, { offset: 1, limit: 1 })).toEqual({ slugs: ['support-bot'], total: 2 });
    expect(await found('.')).toEqual({ slugs: ['a.b'], total: 1 }); // taken literally, not as a pattern
    expect(await found('%')).toEqual({ slugs: [], total: 0 });
    expect(await found('nothing like it')).toEqual({ slugs: [], total: 0 });
  });

  it('lists a preset’s versions in ascending order, with paging and a total', async () => {
    const id = randomUUID();
    const versions = [3, 1, 2].map((n) => version(id, n, `2026-01-0${n}T00:00:00.000Z`));
    await rm.apply(
      versions.map((v) => ({ kind: 'putVersion', version: v }) as const),
      { name: checkpointName(), position: 3n },
    );
    const all = await rm.listVersions(id, { offset: 0, limit: 10 });
    expect(all.items.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(all.total).toBe(3);
    expect((await rm.listVersions(id, { offset: 2, limit: 5 })).items.map((v) => v.version)).toEqual([3]);
    expect((await rm.listVersions(randomUUID(), { offset: 0, limit: 5 })).total).toBe(0);
  });

  it('lists the same versions as text (what verify compares first): each parses to the version listed', async () => {
    const id = randomUUID();
    const versions = [2, 1, 3].map((n) => version(id, n, `2026-01-0${n}T00:00:00.000Z`));
    await rm.apply(
      versions.map((v) => ({ kind: 'putVersion', version: v }) as const),
      { name: checkpointName(), position: 3n },
    );
    const text = await rm.listVersionsJson(id, { offset: 0, limit: 10 });
    expect(text.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(text.map((v) => JSON.parse(v.json) as unknown)).toEqual((await rm.listVersions(id, { offset: 0, limit: 10 })).items);
    expect((await rm.listVersionsJson(id, { offset: 1, limit: 1 })).map((v) => v.version)).toEqual([2]);
    expect(await rm.listVersionsJson(randomUUID(), { offset: 0, limit: 5 })).toEqual([]);
  });

  it('finds the version of the highest number, by number and not by insertion order, and only the preset’s own', async () => {
    const id = randomUUID();
    const other = randomUUID();
    expect(await rm.getLatestVersion(id)).toBeNull();
    const versions = [2, 10, 1, 9].map((n) => version(id, n, `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`));
    await rm.apply(
      versions.map((v) => ({ kind: 'putVersion', version: v }) as const),
      { name: checkpointName(), position: 3n },
    );
    await rm.apply([{ kind: 'putVersion', version: version(other, 11, '2026-02-01T00:00:00.000Z') }], {
      name: checkpointName(),
      position: 4n,
    });
    expect(await rm.getLatestVersion(id)).toEqual(versions[1]);
    await rm.apply([{ kind: 'putVersion', version: version(id, 11, '2026-02-02T00:00:00.000Z') }], {
      name: checkpointName(),
      position: 5n,
    });
    expect((await rm.getLatestVersion(id))?.version).toBe(11);
    expect((await rm.getLatestVersion(other))?.preset_id).toBe(other);
  });
};
