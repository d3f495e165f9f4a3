import { ABSENT, diffValues, type Difference } from './diff';
import { presetViewJson, versionViewJson } from './readmodel/documentJson';
import type { PresetRecord, ReadModel, VersionView } from './readmodel/readModel';

/** How verify compares one preset as the events make it with what the read model holds. */
const PAGE = 1000;

const allVersions = async (readModel: ReadModel, presetId: string): Promise<VersionView[]> => {
  const all: VersionView[] = [];
  for (;;) {
    const { items } = await readModel.listVersions(presetId, { offset: all.length, limit: PAGE });
    all.push(...items);
    if (items.length < PAGE) return all;
  }
};

/**
 * Differences of one preset: its document (and revision), then each version by number. What the
 * fold expects is compared as its JSON says (parsed): a fold over stored text holds configs as
 * their text (src/presets/storedEvents.ts), the read model parsed.
 */
export const presetDifferences = async (readModel: ReadModel, expected: PresetRecord, versions: VersionView[]) => {
  const out: Difference[] = [];
  const actual = await readModel.getPreset(expected.view.workspace_id, expected.view.slug);
  if (!actual) out.push({ path: '(preset)', expected: expected.view.id, actual: ABSENT });
  else {
    diffValues(JSON.parse(presetViewJson(expected.view)), actual.view, '', out);
    if (actual.revision !== expected.revision) out.push({ path: '(revision)', expected: expected.revision, actual: actual.revision });
  }
  const stored = new Map((await allVersions(readModel, expected.view.id)).map((v) => [v.version, v]));
  const wanted = new Map(versions.map((v) => [v.version, JSON.parse(versionViewJson(v)) as VersionView]));
  const numbers = [...new Set([...wanted.keys(), ...stored.keys()])].sort((a, b) => a - b);
  for (const n of numbers) diffValues(wanted.get(n) ?? ABSENT, stored.get(n) ?? ABSENT, `versions[${n}]`, out);
  return { out, actualRevision: actual?.revision ?? null };
};
