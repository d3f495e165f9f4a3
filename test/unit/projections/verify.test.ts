import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { openMemoryReadModel, type MemoryReadModel } from '#projections/readmodel/memory';
import type { ReadModel } from '#projections/readmodel/readModel';
import { verifyReadModel } from '#projections/verify';
import { makeHistory, projectLive, WORKSPACES } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

const [A] = WORKSPACES;

describe('verify', () => {
  let store: EventStoreAdapter;
  let live: MemoryReadModel;
  beforeEach(async () => {
    store = openMemoryEventStore();
    await makeHistory(store, { extraPresets: 4 });
    live = openMemoryReadModel();
    await projectLive(store, live);
  });
  afterEach(async () => {
    await store.close();
  });

  it('finds no difference in a read model the projector made', async () => {
    const report = await verifyReadModel(store, live);
    expect(report).toMatchObject({ differences: [], behind: 0, lagging: 0, movedOn: 0, presets: 8 });
    expect(report.versions).toBe(3 + 2 + 1 + 1 + (1 + 2 + 3 + 1)); // support-bot, summarise, the other workspace's, greeter, the extra four
    expect(report.events).toBe(Number(await store.headPosition()));
  });

  it('names a changed field, a missing version and a preset without events', async () => {
    const getPreset: ReadModel['getPreset'] = async (ws, slug) => {
      const record = await live.getPreset(ws, slug);
      if (record && slug === 'support-bot' && ws === A) record.view.designated_version.system_prompt = 'changed by hand';
      return record;
    };
    const listVersions: ReadModel['listVersions'] = async (presetId, page) => {
      const { items, total } = await live.listVersions(presetId, page);
      const summarise = await live.getPreset(A, 'summarise');
      return presetId === summarise!.view.id ? { items: items.filter((v) => v.version !== 2), total: total - 1 } : { items, total };
    };
    // The same faults in every form the read model answers in (documents and their text), as a
    // tampered store would hold them.
    const tampered: ReadModel = {
      ...live,
      getPreset,
      listVersions,
      getPresetJson: async (ws, slug) => {
        const record = await getPreset(ws, slug);
        return record && { workspaceId: ws, slug, revision: record.revision, json: JSON.stringify(record.view) };
      },
      listVersionsJson: async (presetId, page) =>
        (await listVersions(presetId, page)).items.map((v) => ({ version: v.version, json: JSON.stringify(v) })),
    };
    const orphan = (await live.getPreset(A, 'summarise'))!;
    await live.apply([{ kind: 'putPreset', record: { ...orphan, view: { ...orphan.view, slug: 'orphan' } } }], {
      name: 'other',
      position: 1n,
    });
    const { differences } = await verifyReadModel(store, tampered);
    expect(differences).toEqual([
      `difference: workspace ${A} preset support-bot designated_version.system_prompt: expected "Be terse.", actual "changed by hand"`,
      expect.stringMatching(
        new RegExp(`^difference: workspace ${A} preset summarise versions\\[2\\]: expected \\{"id":.*…, actual \\(absent\\)$`),
      ),
      `difference: workspace ${A} preset orphan (preset): expected (absent), actual "${orphan.view.id}"`,
    ]);
  });

  it('reports a read model that is behind, and compares its presets only when strict', async () => {
    // 21 more events the read model has not seen: 10 versions and designations (the templated
    // preset's second version among them), 8 label and status changes, and 3 of the rollout (two
    // splits and the promotion; the history's other changes, the canary split included, are
    // already so: no event).
    await makeHistory(store, { extraPresets: 0 });
    const report = await verifyReadModel(store, live);
    expect(report).toMatchObject({ differences: [], behind: 21, lagging: 4 });
    const strict = await verifyReadModel(store, live, { strict: true });
    expect(strict.differences.length).toBeGreaterThan(0);
    expect(strict.differences[0]).toMatch(/preset (support-bot|summarise) /);
  });

  it('does not count a preset that changed after the events it folded', async () => {
    const all = await store.readAll({ limit: 1000, streamPrefix: WORKSPACE_STREAM_PREFIX });
    // The last event arrives "during" the verify: its head is the one before, the read model has it.
    const earlier: EventStoreAdapter = { ...store, headPosition: async () => all[all.length - 2]!.position };
    const report = await verifyReadModel(earlier, live);
    expect(report).toMatchObject({ differences: [], movedOn: 1 });
  });
});
