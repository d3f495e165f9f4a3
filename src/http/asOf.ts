import type { PresetRecord, VersionView } from '../../projections/readmodel/readModel';
import type { PresetSource } from '../resolve/presetSource';
import type { ValidationProblem } from '../validation';

/**
 * `as_of`: a moment in RFC 3339 (`2026-11-03T14:05:00Z`, an offset or `Z` required, fractions of a
 * second allowed). The reads and resolve then answer from the preset's events up to that moment
 * (projections/presetAt.ts) instead of the read model.
 */
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The moment, or a problem at `path`. */
export const parseMoment = (raw: unknown, path: string): Date | ValidationProblem => {
  const match = typeof raw === 'string' ? RFC3339.exec(raw) : null;
  // Milliseconds are what the store records: finer digits are cut, not rounded.
  const date = match ? new Date(`${match[1]}T${match[2]}${(match[3] ?? '').slice(0, 4)}${match[4]!.toUpperCase()}`) : null;
  if (date && !Number.isNaN(date.getTime())) return date;
  return { path, message: `must be an RFC 3339 date-time with an offset, such as 2026-11-03T14:05:00Z; got ${JSON.stringify(raw)}` };
};

export const isProblem = (u: Date | ValidationProblem): u is ValidationProblem => !(u instanceof Date);

/** A preset as it stood at a moment: its document (and as JSON), and its versions then, ascending. */
export interface PresetAsOf {
  record: PresetRecord;
  json: string;
  versions: VersionView[];
}

/** How a preset is folded up to a moment (presetAsOf in projections/presetAt.ts, over the event store). */
export type PresetAsOfReader = (workspaceId: string, slug: string, at: Date) => Promise<PresetAsOf | null>;

/**
 * The resolver's source at a moment: each preset folded from its events up to it. A look at the
 * past never serves what may not be used now: a preset archived or disabled since (an incident's
 * disable) has its status of now, so it is refused as it is without `as_of`.
 */
export const asOfSource = (read: PresetAsOfReader, workspaceId: string, at: Date, now: Pick<PresetSource, 'preset'>): PresetSource => {
  const folded = new Map<string, Promise<PresetAsOf | null>>();
  const fold = (slug: string) => {
    let found = folded.get(slug);
    if (!found) folded.set(slug, (found = read(workspaceId, slug, at)));
    return found;
  };
  const versionsOf = async (slug: string) => (await fold(slug))?.versions ?? [];
  return {
    preset: async (slug) => {
      const then = (await fold(slug))?.record.view ?? null;
      if (!then) return null;
      const status = (await now.preset(slug))?.status ?? 'active';
      return status === 'active' ? then : { ...then, status };
    },
    version: async (preset, number) => (await versionsOf(preset.slug)).find((v) => v.version === number) ?? null,
    latestVersion: async (preset) => (await versionsOf(preset.slug)).at(-1) ?? null,
  };
};
