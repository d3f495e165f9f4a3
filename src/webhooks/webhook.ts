/**
 * A webhook as the service keeps it, and the pure changes the API makes to it. Registrations are
 * not events in the preset store: a signing secret must never enter an append-only log that cannot
 * forget it, so they live in a store of their own (webhookStore.ts).
 */

export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A signing secret; the current one has no expiry, a replaced one signs until `expiresAt`. */
export interface SigningSecret {
  secret: string;
  expiresAt: string | null;
}

/** What the API changes. `revision` counts those changes, so two writers cannot lose one another's. */
export interface Webhook {
  id: string;
  workspaceId: string;
  url: string;
  /** Event types to send; null: every preset event type, including ones added later. */
  events: string[] | null;
  description: string | null;
  status: WebhookStatus;
  /** Why a webhook was disabled (by a 410 or by failing for too long); null otherwise. */
  statusReason: string | null;
  /** The current secret first, then replaced ones still within their overlap. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
  revision: number;
}

/** What the deliverer changes: where delivery stands, and since when it has been failing. */
export interface DeliveryProgress {
  /** Every event up to this position was acknowledged (or is not sent to this webhook); null: none yet. */
  checkpoint: bigint | null;
  /** Moved by a replay: progress saved under an older epoch is refused, so a replay is never undone. */
  epoch: number;
  failingSince: string | null;
  /** The event the failing attempts were for, and how many there were: attempt numbers go on after a restart. */
  failingEventId: string | null;
  failingAttempts: number;
  /** When the next attempt is due after a failure: a restart does not retry sooner. */
  nextAttemptAt: string | null;
}

export interface StoredWebhook {
  webhook: Webhook;
  progress: DeliveryProgress;
}

export const NO_FAILURE = { failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null } as const;

/** How long a replaced secret keeps signing deliveries beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Replaced secrets kept at once: rotating again within a day does not grow the header without bound. */
export const MAX_PREVIOUS_SECRETS = 2;
/** A workspace's webhooks at most: each active one is a delivery loop in the API process. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 100;

export interface NewWebhookInput {
  url: string;
  events?: string[] | null;
  description?: string | null;
}

export const newWebhook = (
  input: NewWebhookInput,
  ids: { id: string; workspaceId: string; secret: string; now: Date; checkpoint: bigint | null },
): StoredWebhook => {
  const at = ids.now.toISOString();
  return {
    webhook: {
      id: ids.id,
      workspaceId: ids.workspaceId,
      url: input.url,
      events: input.events ?? null,
      description: input.description ?? null,
      status: 'active',
      statusReason: null,
      secrets: [{ secret: ids.secret, expiresAt: null }],
      createdAt: at,
      updatedAt: at,
      revision: 0,
    },
    // A new webhook hears of what happens from now on; a replay sends what came before.
    progress: { checkpoint: ids.checkpoint, epoch: 0, ...NO_FAILURE },
  };
};

export interface WebhookPatch {
  url?: string;
  events?: string[] | null;
  description?: string | null;
  status?: 'active' | 'paused';
}

/**
 * The webhook after a PATCH, or null when it changes nothing. `reactivated`: a disabled (or
 * paused) webhook set active again starts with a clean failure record, else the failures that
 * disabled it would disable it again at once.
 */
export const patchWebhook = (w: Webhook, patch: WebhookPatch, now: Date): { webhook: Webhook; reactivated: boolean } | null => {
  const next: Webhook = {
    ...w,
    url: patch.url ?? w.url,
    events: patch.events !== undefined ? patch.events : w.events,
    description: patch.description !== undefined ? patch.description : w.description,
    status: patch.status ?? w.status,
  };
  if (next.status !== 'disabled') next.statusReason = null;
  const changed =
    next.url !== w.url || !sameEvents(next.events, w.events) || next.description !== w.description || next.status !== w.status;
  if (!changed) return null;
  return {
    webhook: { ...next, updatedAt: now.toISOString(), revision: w.revision + 1 },
    reactivated: next.status === 'active' && w.status !== 'active',
  };
};

const sameEvents = (a: string[] | null, b: string[] | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]));

/** A new current secret; the one it replaces signs beside it for ROTATION_OVERLAP_MS. */
export const rotateSecret = (w: Webhook, secret: string, now: Date): Webhook => {
  const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
  const previous = liveSecrets(w.secrets, now).map((s) => (s.expiresAt === null ? { ...s, expiresAt } : s));
  return {
    ...w,
    secrets: [{ secret, expiresAt: null }, ...previous].slice(0, 1 + MAX_PREVIOUS_SECRETS),
    updatedAt: now.toISOString(),
    revision: w.revision + 1,
  };
};

/** The secrets that sign a delivery made at `now`: the current one and those still in their overlap. */
export const liveSecrets = (secrets: SigningSecret[], now: Date): SigningSecret[] => secrets.filter((s) => signsAt(s, now));

export const signsAt = (s: Pick<SigningSecret, 'expiresAt'>, now: Date): boolean =>
  s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime();

export const disableWebhook = (w: Webhook, reason: string, now: Date): Webhook => ({
  ...w,
  status: 'disabled',
  statusReason: reason,
  updatedAt: now.toISOString(),
  revision: w.revision + 1,
});

/** Does this webhook want events of this type? */
export const wants = (events: string[] | null, type: string): boolean => events === null || events.includes(type);

/**
 * Where delivery stands after a replay from `after`: never later than it stood, since a replay
 * from a position not yet reached must not skip the events before it.
 */
export const rewound = (p: DeliveryProgress, after: bigint): DeliveryProgress => ({
  ...p,
  checkpoint: p.checkpoint === null || after < p.checkpoint ? after : p.checkpoint,
  epoch: p.epoch + 1,
  failingEventId: null,
  failingAttempts: 0,
  nextAttemptAt: null,
});
