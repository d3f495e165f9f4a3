import type { PresetJson, PresetRecord, PresetView, VersionView } from './readModel';

/**
 * The JSON of read-model documents, made once per document. Documents are never changed once made
 * (the projection makes new ones), so each is serialized once, however many of the read model's
 * write, the projector's announcement and a write's answer need it.
 */
const serialized = new WeakMap<PresetView, string>();
const serializedVersions = new WeakMap<VersionView, string>();

export const versionViewJson = (version: VersionView): string => {
  let json = serializedVersions.get(version);
  if (json === undefined) serializedVersions.set(version, (json = JSON.stringify(version)));
  return json;
};

/**
 * The same text as `JSON.stringify(view)`, but the designated version's JSON (most of it: the
 * config) is the one made for the version's own row: a write's config is serialized once, not twice.
 */
export const presetViewJson = (view: PresetView): string => {
  let json = serialized.get(view);
  if (json === undefined) {
    const keys = Object.keys(view);
    if (keys[keys.length - 1] === 'designated_version') {
      const { designated_version: version, ...rest } = view;
      json = `${JSON.stringify(rest).slice(0, -1)},"designated_version":${versionViewJson(version)}}`;
    } else {
      json = JSON.stringify(view); // keys in another order (not made by the projection): as they are
    }
    serialized.set(view, json);
  }
  return json;
};

export const presetJsonOf = ({ view, revision }: PresetRecord): PresetJson => ({
  workspaceId: view.workspace_id,
  slug: view.slug,
  revision,
  json: presetViewJson(view),
});
