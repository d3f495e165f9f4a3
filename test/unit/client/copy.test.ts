import type { PresetView, VersionView } from '#projections/readmodel/readModel';
import type { ClientApi } from '#src/client/api';
import { createPresetCopy, type FeedEvent } from '#src/client/copy';
import { backoffDelay } from '#src/client/feed';

/** The client's copy against a service played by a fake API: what it asks for, and what it keeps. */
const WS = '11111111-1111-4111-8111-111111111111';
const PRESET = '22222222-2222-4222-8222-222222222222';
const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`;
const versionData = (n: number) => ({ id: `v${n}`, number: n, config: { model: `m/${n}` }, systemPrompt: '', creatorId: 'u' });
const meta = { requestId: 'r', actorUserId: 'u', sourceFormat: 'chat_completions' as const, schemaVersion: 2 };
let position = 100;
const event = (revision: number, type: string, data: FeedEvent['data']): FeedEvent => ({
  id: `e${revision}`,
  type,
  stream: `preset-${WS}-bot`,
  revision,
  position: String(++position),
  recorded_at: at(revision),
  data,
  metadata: meta,
});
const created = () =>
  event(0, 'PresetCreated', {
    presetId: PRESET,
    workspaceId: WS,
    slug: 'bot',
    name: 'bot',
    creatorUserId: 'u',
    version: versionData(1),
    occurredAt: at(0),
  });
const added = (revision: number, n: number) =>
  event(revision, 'PresetVersionAdded', { presetId: PRESET, version: versionData(n), occurredAt: at(revision) });
const designated = (revision: number, n: number, previous: number) =>
  event(revision, 'PresetVersionDesignated', {
    presetId: PRESET,
    versionId: `v${n}`,
    versionNumber: n,
    previousVersionNumber: previous,
    occurredAt: at(revision),
  });

const versionView = (n: number): VersionView => ({
  id: `v${n}`,
  preset_id: PRESET,
  version: n,
  config: { model: `m/${n}` },
  system_prompt: '',
  template_format: 'none',
  variables: null,
  messages: [],
  note: null,
  source_format: 'chat_completions',
  creator_id: 'u',
  created_at: at(n),
  updated_at: at(n),
});
const presetView = (n: number): PresetView => ({
  id: PRESET,
  name: 'bot',
  slug: 'bot',
  description: null,
  status: 'active',
  status_updated_at: null,
  created_at: at(0),
  updated_at: at(n),
  creator_user_id: 'u',
  workspace_id: WS,
  labels: {},
  designated_version_id: `v${n}`,
  designated_version: versionView(n),
});

/** A fake service: the documents it would answer with, and a log of what it was asked. */
const fakeApi = (state: {
  preset?: { view: PresetView; revision: bigint };
  versions?: VersionView[];
  listed?: PresetView[];
  position?: string;
}) => {
  const calls: string[] = [];
  const api: Omit<ClientApi, 'reportUsage'> = {
    async listPresets(offset, limit) {
      calls.push(`list ${offset}`);
      const all = state.listed ?? [];
      return { items: all.slice(offset, offset + limit), total: all.length, position: state.position };
    },
    async getPreset(slug, revision) {
      calls.push(`preset ${slug}${revision === undefined ? '' : ` if-none-match ${revision}`}`);
      if (!state.preset) return null;
      return revision === state.preset.revision ? 'unchanged' : state.preset;
    },
    async getVersion(slug, number) {
      calls.push(`version ${slug} ${number}`);
      return state.versions?.find((v) => v.version === number) ?? null;
    },
    async latestVersion(slug) {
      calls.push(`latest ${slug}`);
      return state.versions?.at(-1) ?? null;
    },
    openFeed: () => Promise.reject(new Error('not in this test')),
  };
  return { api, calls };
};
const preset = async (copy: ReturnType<typeof createPresetCopy>) => copy.preset('bot');

describe('the first copy', () => {
  it("lists every page, and follows the feed from the first page's position", async () => {
    const listed = Array.from({ length: 250 }, (_, i) => ({ ...presetView(1), id: `id-${i}`, slug: `s${i}` }));
    const { api, calls } = fakeApi({ listed, position: '42' });
    const copy = createPresetCopy(api, { maxVersions: 10 });
    expect(await copy.load()).toBe('42');
    expect(calls).toEqual(['list 0', 'list 100', 'list 200']);
    expect(copy.size).toBe(250);
  });
});

describe('events', () => {
  it('a listed document is read alone first, for its revision; an event it already reflects changes nothing', async () => {
    const { api, calls } = fakeApi({ listed: [presetView(2)], preset: { view: presetView(2), revision: 1n } });
    const copy = createPresetCopy(api, { maxVersions: 10 });
    await copy.load();
    await copy.apply(added(1, 2)); // the document already shows version 2 (revision 1)
    expect(calls).toEqual(['list 0', 'preset bot']);
    await copy.apply(created()); // older still: never back in time
    expect((await preset(copy))?.designated_version.version).toBe(2);
    await copy.apply(added(2, 3));
    expect((await preset(copy))?.designated_version.version).toBe(3);
    expect(calls).toEqual(['list 0', 'preset bot']);
  });

  it('a preset created after the list needs no read; an added version is the newest, with no read', async () => {
    const { api, calls } = fakeApi({});
    const copy = createPresetCopy(api, { maxVersions: 10 });
    await copy.load();
    await copy.apply(created());
    await copy.apply(added(1, 2));
    const view = (await preset(copy))!;
    expect(view.designated_version).toMatchObject({ version: 2, source_format: 'chat_completions' });
    expect((await copy.latestVersion(view))?.version).toBe(2);
    expect((await copy.version(view, 1))?.config).toEqual({ model: 'm/1' });
    expect(calls).toEqual(['list 0']);
  });

  it('a designation of a version it does not hold reads that version', async () => {
    const { api, calls } = fakeApi({ versions: [versionView(1)] });
    const copy = createPresetCopy(api, { maxVersions: 1 }); // room for one version: the second pushes the first out
    await copy.load();
    await copy.apply(created());
    await copy.apply(added(1, 2));
    await copy.apply(designated(2, 1, 2));
    expect((await preset(copy))?.designated_version.version).toBe(1);
    expect(calls).toEqual(['list 0', 'version bot 1']);
  });

  it('an event of a preset the service does not show yet is left for the document to bring', async () => {
    const { api, calls } = fakeApi({});
    const copy = createPresetCopy(api, { maxVersions: 10 });
    await copy.apply(added(1, 2));
    expect(await preset(copy)).toBeNull();
    expect(calls).toEqual(['preset bot']);
  });
});

describe('revalidation', () => {
  it('asks with If-None-Match once it knows the revision; a changed preset replaces the old and forgets its newest version', async () => {
    const state: Parameters<typeof fakeApi>[0] = {
      listed: [presetView(1)],
      preset: { view: presetView(1), revision: 0n },
      versions: [versionView(1)],
    };
    const { api, calls } = fakeApi(state);
    const copy = createPresetCopy(api, { maxVersions: 10 });
    await copy.load();
    await copy.revalidate(); // no revision from the list: read whole
    await copy.revalidate(); // now: unchanged
    expect(calls.slice(1)).toEqual(['preset bot', 'preset bot if-none-match 0']);
    expect((await copy.latestVersion((await preset(copy))!))?.version).toBe(1);

    state.preset = { view: presetView(2), revision: 1n };
    state.versions = [versionView(1), versionView(2)];
    await copy.revalidate();
    expect((await preset(copy))?.designated_version.version).toBe(2);
    expect((await copy.latestVersion((await preset(copy))!))?.version).toBe(2);
    expect(calls.slice(4)).toEqual(['preset bot if-none-match 0', 'latest bot']);

    state.preset = undefined; // gone from the service
    await copy.revalidate();
    expect(await preset(copy)).toBeNull();
  });
});

describe('reconnecting', () => {
  it('waits a random time up to the exponential bound, capped', () => {
    const backoff = { initialMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 10].map((a) => backoffDelay(a, backoff, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(5, backoff, () => 0)).toBe(0);
    expect(backoffDelay(1e9, backoff, () => 0.5)).toBe(500);
  });
});
