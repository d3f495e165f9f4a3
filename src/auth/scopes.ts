/**
 * What a key may do (pure: the domain's events and presets/client import it). `webhooks:manage`:
 * the webhooks API (registrations, secrets, deliveries, replay); `events:consume`: consumer groups;
 * `keys:manage`: the keys API; `presets:release`: changing protected labels and the protected
 * designation, and deciding on proposals (docs/keys-and-release.md); `audit:read`: the audit API
 * (verify, signed export, report, checkpoints, the public key: docs/audit.md).
 */
export const SCOPES = [
  'presets:read',
  'presets:write',
  'webhooks:manage',
  'events:consume',
  'keys:manage',
  'presets:release',
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];
