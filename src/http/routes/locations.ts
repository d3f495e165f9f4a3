/** Where a preset and its versions live, for Location headers. */
export const presetLocation = (slug: string) => `/api/v1/presets/${encodeURIComponent(slug)}`;
export const versionLocation = (slug: string, version: number) => `${presetLocation(slug)}/versions/${version}`;
