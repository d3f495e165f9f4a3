import type { PresetView, VersionView } from '../../projections/readmodel/readModel';

/**
 * Where the resolver finds presets and versions, within one workspace: the read model on the
 * server (src/http/routes/resolve.ts), the client's in-memory copy in a gateway (src/client/). The
 * resolver is the same pure function over either.
 */
export interface PresetSource {
  /** The preset of this slug, with its designated version and labels; null when there is none. */
  preset(slug: string): Promise<PresetView | null>;
  /** One of its versions by number; null when it has none of that number. */
  version(preset: PresetView, number: number): Promise<VersionView | null>;
  /** Its version of the highest number. */
  latestVersion(preset: PresetView): Promise<VersionView | null>;
}
