import type { PresetJson, PresetView, ReadModelQueries } from '../../projections/readmodel/readModel';
import type { PresetSource } from '../resolve/presetSource';

/**
 * The resolver's source on the server: the read model, within the caller's workspace. A preset
 * document comes through the document cache as JSON (src/http/presetCache.ts) and is parsed once
 * per cached document, so a hot preset costs no read and no parse.
 */
const parsed = new WeakMap<PresetJson, PresetView>();

export const readModelSource = (
  readModel: Pick<ReadModelQueries, 'getPresetJson' | 'getVersion' | 'getLatestVersion'>,
  workspaceId: string,
): PresetSource => ({
  async preset(slug) {
    const doc = await readModel.getPresetJson(workspaceId, slug);
    if (!doc) return null;
    let view = parsed.get(doc);
    if (!view) parsed.set(doc, (view = JSON.parse(doc.json) as PresetView));
    return view;
  },
  version: (preset, number) => readModel.getVersion(preset.id, number),
  latestVersion: (preset) => readModel.getLatestVersion(preset.id),
});
