import type { PresetJson, PresetRecord, PresetView, ProjectionChange, VersionView } from './readModel';
import { isRawJson } from '../../src/presets/storedEvents';

/**
 * The JSON of read-model documents, made once per document. Documents are never changed once made
 * (the projection makes new ones), so each is serialized once, however many of the read model's
 * write, the projector's announcement and a write's answer need it.
 */
const serialized = new WeakMap<PresetView, string>();
const serializedVersions = new WeakMap<VersionView, string>();

/**
 * A config kept as its stored text (RawJson, a rebuild's or verify's fold: src/presets/storedEvents.ts)
 * is spliced in as it is: the rest is serialized with a 0 in its place, and the first `"config":0`
 * of that text is the version's own member (the keys before it are the id, the preset's id and the
 * number; a quote inside a string is escaped, so no string can hold that sequence).
 */
export const versionViewJson = (version: VersionView): string => {
  let json = serializedVersions.get(version);
  if (json === undefined) {
    const { config } = version as { config: unknown };
    if (isRawJson(config)) {
      const rest = JSON.stringify({ ...version, config: 0 });
      const at = rest.indexOf(CONFIG_PLACEHOLDER) + CONFIG_PLACEHOLDER.length - 1;
      json = `${rest.slice(0, at)}${config.text}${rest.slice(at + 1)}`;
    } else json = JSON.stringify(version);
    serializedVersions.set(version, json);
  }
  return json;
};
const CONFIG_PLACEHOLDER = '"config":0';

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

/**
 * A change with its documents as plain JSON values: what a read model that stores objects (MongoDB)
 * is given, and what crosses a thread (a structured clone keeps no class): a config a fold kept as
 * its stored text (RawJson) is parsed here, in its place; any other change is the same object.
 */
export const plainChange = (change: ProjectionChange): ProjectionChange => {
  if (change.kind === 'putVersion') return isRawJson(change.version.config) ? { ...change, version: plainVersion(change.version) } : change;
  const { view } = change.record;
  if (!view.designated_version || !isRawJson(view.designated_version.config)) return change;
  return { ...change, record: { ...change.record, view: { ...view, designated_version: plainVersion(view.designated_version) } } };
};
const plainVersion = (version: VersionView): VersionView => {
  const { config } = version as { config: unknown };
  return isRawJson(config) ? { ...version, config: JSON.parse(config.text) as VersionView['config'] } : version;
};
