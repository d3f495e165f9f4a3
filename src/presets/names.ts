/**
 * How presets and labels may be named: rules of the domain, which the HTTP routes check in paths
 * and the resolver checks in a request's preset reference.
 */

/** Slugs are 1–128 URL-safe characters, starting with a letter or digit (so never `.` or `..`). */
export const SLUG = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

/** 1–36 of `a-z 0-9 _ . -`, starting with a letter or digit; `latest` always means the newest version. */
export const LABEL = /^[a-z0-9][a-z0-9_.-]{0,35}$/;
export const RESERVED_LABELS = ['latest'];
