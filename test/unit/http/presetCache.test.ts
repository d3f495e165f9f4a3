import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { presetJsonOf } from '#projections/readmodel/documentJson';
import type { PresetJson, PresetRecord, ReadModel } from '#projections/readmodel/readModel';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { withPresetCache } from '#src/http/presetCache';

/**
 * The service's reads of one preset go through this cache; the projector's announcements keep it
 * current. What a reader relies on: a document written by projection is what the next read sees,
 * never an older one, and a bounded cache falls back to the read model.
 */
const W = randomUUID();
const recordAt = (slug: string, revision: bigint, prompt: string): PresetRecord => {
  const at = new Date(Date.UTC(2026, 0, 1) + Number(revision) * 1000).toISOString();
  const presetId = `id-${slug}`;
  const version = {
    id: randomUUID(),
    preset_id: presetId,
    version: Number(revision) + 1,
    config: { model: 'm/x' },
    system_prompt: prompt,
    template_format: 'none' as const,
    variables: null,
    messages: [],
    note: null,
    source_format: 'chat_completions' as const,
    creator_id: 'u',
    created_at: at,
    updated_at: at,
  };
  return {
    revision,
    view: {
      id: presetId,
      name: slug,
      slug,
      description: null,
      status: 'active',
      status_updated_at: null,
      created_at: at,
      updated_at: at,
      creator_user_id: 'u',
      workspace_id: W,
      labels: {},
      designated_version_id: version.id,
      designated_version: version,
    },
  };
};

/** What the projector does: write, then announce. */
const project = async (rm: ReadModel, projected: EventEmitter, record: PresetRecord, announce = true) => {
  await rm.apply(
    [
      { kind: 'putVersion', version: record.view.designated_version },
      { kind: 'putPreset', record },
    ],
    { name: 't', position: record.revision + 1n },
  );
  if (announce) projected.emit('projected', record.revision + 1n, [presetJsonOf(record)]);
};
const promptOf = (doc: PresetJson | null) =>
  doc && (JSON.parse(doc.json) as { designated_version: { system_prompt: string } }).designated_version.system_prompt;

it('serves the latest projected document: from memory once read, refreshed by announcements', async () => {
  const backing = openMemoryReadModel();
  const projected = new EventEmitter();
  const reads = withPresetCache(backing, projected);
  const getPresetJson = jest.spyOn(backing, 'getPresetJson');
  expect(await reads.getPresetJson(W, 'a')).toBeNull();

  await project(backing, projected, recordAt('a', 0n, 'first'));
  expect(promptOf(await reads.getPresetJson(W, 'a'))).toBe('first');
  expect(getPresetJson).toHaveBeenCalledTimes(2);
  await project(backing, projected, recordAt('a', 1n, 'second'));
  const doc = await reads.getPresetJson(W, 'a');
  expect(promptOf(doc)).toBe('second');
  expect(doc!.revision).toBe(1n);
  // The announcement carried the new document: the read model was not asked again.
  expect(getPresetJson).toHaveBeenCalledTimes(2);
  expect(await reads.getPresetJson(randomUUID(), 'a')).toBeNull();
});

it('holds only what was read: announcements of documents nobody read are not kept', async () => {
  const backing = openMemoryReadModel();
  const projected = new EventEmitter();
  const reads = withPresetCache(backing, projected);
  await project(backing, projected, recordAt('new', 0n, 'created'));
  const getPresetJson = jest.spyOn(backing, 'getPresetJson');
  expect(promptOf(await reads.getPresetJson(W, 'new'))).toBe('created');
  expect(getPresetJson).toHaveBeenCalledTimes(1);
});

it('never goes back to an older revision, whichever comes first', async () => {
  const backing = openMemoryReadModel();
  const projected = new EventEmitter();
  const reads = withPresetCache(backing, projected);
  await project(backing, projected, recordAt('b', 2n, 'newer'));
  expect(promptOf(await reads.getPresetJson(W, 'b'))).toBe('newer');
  projected.emit('projected', 2n, [presetJsonOf(recordAt('b', 1n, 'older, announced late'))]);
  expect(promptOf(await reads.getPresetJson(W, 'b'))).toBe('newer');
});

it('holds at most maxBytes of documents and reads the rest from the read model', async () => {
  const backing = openMemoryReadModel();
  const projected = new EventEmitter();
  const one = presetJsonOf(recordAt('x', 0n, 'p')).json.length;
  const reads = withPresetCache(backing, projected, Math.floor(one * 2.5));
  const slugs = ['c1', 'c2', 'c3', 'c4'];
  for (const slug of slugs) await project(backing, projected, recordAt(slug, 0n, slug));
  for (const slug of slugs) await reads.getPresetJson(W, slug);
  const getPresetJson = jest.spyOn(backing, 'getPresetJson');
  expect(promptOf(await reads.getPresetJson(W, 'c4'))).toBe('c4');
  expect(getPresetJson).toHaveBeenCalledTimes(0);
  // c1 was evicted by the later ones: read again from the read model, and still right.
  expect(promptOf(await reads.getPresetJson(W, 'c1'))).toBe('c1');
  expect(getPresetJson).toHaveBeenCalledTimes(1);
});

it('a read that returns the document from before an announcement made meanwhile answers with the announced one', async () => {
  const backing = openMemoryReadModel();
  const projected = new EventEmitter();
  await project(backing, projected, recordAt('r', 0n, 'old'));
  // A read model whose answer arrives late (MongoDB): the projector writes and announces revision 1
  // while the read of revision 0 is on its way.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow: ReadModel = {
    ...backing,
    getPresetJson: async (w, s) => {
      const doc = await backing.getPresetJson(w, s);
      await gate;
      return doc;
    },
  };
  const reads = withPresetCache(slow, projected);
  const first = reads.getPresetJson(W, 'r');
  const second = reads.getPresetJson(W, 'r'); // the same read, not a second one
  await project(backing, projected, recordAt('r', 1n, 'new'));
  release();
  expect(promptOf(await first)).toBe('new');
  expect(promptOf(await second)).toBe('new');
  expect(promptOf(await reads.getPresetJson(W, 'r'))).toBe('new');
});
