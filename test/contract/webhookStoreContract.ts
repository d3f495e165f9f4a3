import { randomUUID } from 'node:crypto';
import { disableWebhook, newWebhook, patchWebhook, rotateSecret, type StoredWebhook } from '#src/webhooks/webhook';
import { DELIVERY_LOG_SIZE, InvalidCursor, TRIM_EVERY, type NewDeliveryAttempt, type WebhookStore } from '#src/webhooks/webhookStore';

/** What every webhook store must do. Each test uses fresh workspace ids, so a shared server can hold old data. */
export interface WebhookStoreFixture {
  store: WebhookStore;
  cleanup(): Promise<void>;
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const made = (workspaceId: string, n = 0, checkpoint: bigint | null = 41n): StoredWebhook =>
  newWebhook(
    { url: `https://hooks.example.com/${n}`, events: n % 2 ? ['PresetCreated'] : null, description: n % 2 ? `hook ${n}` : null },
    {
      id: randomUUID(),
      workspaceId,
      secret: `whsec_${Buffer.from(`secret-${n}-${randomUUID()}`).toString('base64')}`,
      now: at(n),
      checkpoint,
    },
  );

const attempt = (webhookId: string, n: number, outcome: 'succeeded' | 'failed' = 'failed'): NewDeliveryAttempt => ({
  webhookId,
  eventId: `event-${n}`,
  eventType: 'PresetCreated',
  eventPosition: 2n ** 70n + BigInt(n),
  attempt: 1,
  attemptedAt: at(n).toISOString(),
  outcome,
  httpStatus: outcome === 'failed' ? 503 : 204,
  error: null,
  latencyMs: n,
  nextRetryAt: outcome === 'failed' ? at(n + 1).toISOString() : null,
});

/** Every attempt a webhook's log holds, newest first, paged through as a client does. */
const allDeliveries = async (store: WebhookStore, webhookId: string): Promise<string[]> => {
  const kept: string[] = [];
  for (let before: string | undefined; ;) {
    const page = await store.deliveries(webhookId, { limit: 500, before });
    kept.push(...page.map((d) => d.eventId));
    if (page.length < 500) return kept;
    before = page[page.length - 1]!.id;
  }
};

export const webhookStoreContract = (open: () => Promise<WebhookStoreFixture>) => {
  let fixture: WebhookStoreFixture;
  let store: WebhookStore;
  let workspace: string;

  beforeEach(async () => {
    fixture = await open();
    store = fixture.store;
    workspace = randomUUID();
  });
  afterEach(async () => fixture.cleanup());

  it("keeps a webhook as registered, secret and progress included, and lists a workspace's own, oldest first", async () => {
    const a = made(workspace, 0, null);
    const b = made(workspace, 1, 2n ** 65n + 3n);
    const other = made(randomUUID(), 2);
    await store.insert(a);
    await store.insert(b);
    await store.insert(other);
    expect(await store.get(workspace, a.webhook.id)).toEqual(a);
    expect(await store.get(workspace, b.webhook.id)).toEqual(b);
    expect(await store.list(workspace)).toEqual([a, b]);
    // Another workspace's webhook does not exist for this one.
    expect(await store.get(workspace, other.webhook.id)).toBeNull();
    expect(await store.get(workspace, randomUUID())).toBeNull();
    const active = (await store.listActive()).map((s) => s.webhook.id);
    expect(active).toEqual(expect.arrayContaining([a.webhook.id, b.webhook.id, other.webhook.id]));
  });

  it('counts webhooks by status across workspaces', async () => {
    const before = await store.countByStatus();
    const [a, b, c] = [made(workspace, 0), made(workspace, 1), made(randomUUID(), 2)];
    for (const w of [a, b, c]) await store.insert(w);
    expect(await store.update(patchWebhook(b.webhook, { status: 'paused' }, at(30))!.webhook, 0)).toBe(true);
    expect(await store.update(disableWebhook(c.webhook, 'failing since yesterday', at(31)), 0)).toBe(true);
    const after = await store.countByStatus();
    expect({
      active: after.active - before.active,
      paused: after.paused - before.paused,
      disabled: after.disabled - before.disabled,
    }).toEqual({
      active: 1,
      paused: 1,
      disabled: 1,
    });
  });

  it('changes the configuration only at the revision it was read at, and never touches the progress', async () => {
    const a = made(workspace);
    await store.insert(a);
    await store.saveProgress(a.webhook.id, 0, {
      checkpoint: 50n,
      failingSince: at(9).toISOString(),
      failingEventId: 'e',
      failingAttempts: 3,
      nextAttemptAt: at(10).toISOString(),
    });
    const paused = patchWebhook(a.webhook, { status: 'paused', url: 'https://elsewhere.example.com/' }, at(20))!.webhook;
    expect(await store.update(paused, 0)).toBe(true);
    // A second writer that read revision 0 too loses.
    expect(await store.update(rotateSecret(a.webhook, 'whsec_b3RoZXI=', at(21)), 0)).toBe(false);
    const stored = await store.get(workspace, a.webhook.id);
    expect(stored!.webhook).toEqual(paused);
    expect(stored!.progress).toEqual({
      checkpoint: 50n,
      epoch: 0,
      failingSince: at(9).toISOString(),
      failingEventId: 'e',
      failingAttempts: 3,
      nextAttemptAt: at(10).toISOString(),
    });
    expect((await store.listActive()).map((s) => s.webhook.id)).not.toContain(a.webhook.id);
    // Another workspace cannot change it.
    expect(await store.update({ ...paused, workspaceId: randomUUID(), revision: 2 }, 1)).toBe(false);
  });

  it('clears the failure record (not the checkpoint) when asked, as reactivation does', async () => {
    const a = made(workspace);
    await store.insert(a);
    await store.saveProgress(a.webhook.id, 0, {
      checkpoint: 50n,
      failingSince: at(9).toISOString(),
      failingEventId: 'e',
      failingAttempts: 3,
      nextAttemptAt: at(10).toISOString(),
    });
    const next = patchWebhook(a.webhook, { description: 'again' }, at(11))!.webhook;
    expect(await store.update(next, 0, { resetFailures: true })).toBe(true);
    expect((await store.get(workspace, a.webhook.id))!.progress).toEqual({
      checkpoint: 50n,
      epoch: 0,
      failingSince: null,
      failingEventId: null,
      failingAttempts: 0,
      nextAttemptAt: null,
    });
  });

  it('saves progress only under the epoch it was started in; a replay moves the epoch and never moves the checkpoint forward', async () => {
    const a = made(workspace, 0, 100n);
    await store.insert(a);
    const ok = { checkpoint: 120n, failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null };
    expect(await store.saveProgress(a.webhook.id, 0, ok)).toBe(true);
    expect(await store.rewind(workspace, a.webhook.id, 20n)).toEqual({ ...ok, checkpoint: 20n, epoch: 1 });
    // The loop of epoch 0 comes back with its next delivery: refused, so the replay is not undone.
    expect(await store.saveProgress(a.webhook.id, 0, { ...ok, checkpoint: 121n }, [attempt(a.webhook.id, 1, 'succeeded')])).toBe(false);
    expect((await store.get(workspace, a.webhook.id))!.progress.checkpoint).toBe(20n);
    // A replay from a position not reached yet keeps the checkpoint where it is.
    expect(await store.rewind(workspace, a.webhook.id, 500n)).toMatchObject({ checkpoint: 20n, epoch: 2 });
    expect(await store.saveProgress(a.webhook.id, 2, { ...ok, checkpoint: 21n })).toBe(true);
    expect((await store.get(workspace, a.webhook.id))!.progress).toMatchObject({ checkpoint: 21n, epoch: 2 });
    expect(await store.rewind(randomUUID(), a.webhook.id, 0n)).toBeNull();
  });

  it('records attempts (even under an old epoch: they happened) and pages them newest first', async () => {
    const a = made(workspace);
    await store.insert(a);
    const none = { checkpoint: 41n, failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null };
    for (let n = 1; n <= 5; n++)
      await store.saveProgress(a.webhook.id, 0, none, [attempt(a.webhook.id, n, n === 5 ? 'succeeded' : 'failed')]);
    await store.rewind(workspace, a.webhook.id, 0n);
    await store.saveProgress(a.webhook.id, 0, none, [attempt(a.webhook.id, 6)]);
    const all = await store.deliveries(a.webhook.id, { limit: 100 });
    expect(all.map((d) => d.eventId)).toEqual(['event-6', 'event-5', 'event-4', 'event-3', 'event-2', 'event-1']);
    expect(all[1]).toEqual({ ...attempt(a.webhook.id, 5, 'succeeded'), id: expect.any(String) });
    const first = await store.deliveries(a.webhook.id, { limit: 2 });
    expect(first.map((d) => d.eventId)).toEqual(['event-6', 'event-5']);
    const second = await store.deliveries(a.webhook.id, { limit: 2, before: first[1]!.id });
    expect(second.map((d) => d.eventId)).toEqual(['event-4', 'event-3']);
    expect(await store.deliveries(a.webhook.id, { limit: 10, before: all[5]!.id })).toEqual([]);
    await expect(store.deliveries(a.webhook.id, { limit: 10, before: 'not-an-id!' })).rejects.toBeInstanceOf(InvalidCursor);
  });

  it(`keeps at least the latest ${DELIVERY_LOG_SIZE} attempts and at most ${TRIM_EVERY} more`, async () => {
    const a = made(workspace);
    await store.insert(a);
    const none = { checkpoint: 41n, failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null };
    const total = DELIVERY_LOG_SIZE + 2 * TRIM_EVERY + 7;
    for (let n = 1; n <= total; n++) await store.saveProgress(a.webhook.id, 0, none, [attempt(a.webhook.id, n)]);
    const kept = await allDeliveries(store, a.webhook.id);
    expect(kept.length).toBeGreaterThanOrEqual(DELIVERY_LOG_SIZE);
    expect(kept.length).toBeLessThanOrEqual(DELIVERY_LOG_SIZE + TRIM_EVERY);
    expect(kept.slice(0, DELIVERY_LOG_SIZE)).toEqual(Array.from({ length: DELIVERY_LOG_SIZE }, (_, i) => `event-${total - i}`));
  }, 60_000);

  it('records the attempts of one save in their order, after those of earlier saves, and trims by count of attempts', async () => {
    const a = made(workspace);
    await store.insert(a);
    const none = { checkpoint: 41n, failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null };
    // Saves of 1, 2, 3… attempts (as a delivery loop makes them while its last save commits), past one trim.
    let n = 0;
    for (let size = 1; n < DELIVERY_LOG_SIZE + TRIM_EVERY + 7; size++) {
      const batch = Array.from({ length: size }, () => attempt(a.webhook.id, ++n));
      expect(await store.saveProgress(a.webhook.id, 0, { ...none, checkpoint: BigInt(n) }, batch)).toBe(true);
    }
    const kept = await allDeliveries(store, a.webhook.id);
    expect(kept.length).toBeGreaterThanOrEqual(DELIVERY_LOG_SIZE);
    expect(kept.length).toBeLessThanOrEqual(DELIVERY_LOG_SIZE + TRIM_EVERY);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => `event-${n - i}`));
    expect((await store.get(workspace, a.webhook.id))!.progress.checkpoint).toBe(BigInt(n));
  }, 60_000);

  it('deletes a webhook with its attempts, and records nothing for one that is gone', async () => {
    const a = made(workspace);
    await store.insert(a);
    const none = { checkpoint: 41n, failingSince: null, failingEventId: null, failingAttempts: 0, nextAttemptAt: null };
    await store.saveProgress(a.webhook.id, 0, none, [attempt(a.webhook.id, 1)]);
    expect(await store.delete(randomUUID(), a.webhook.id)).toBe(false);
    expect(await store.delete(workspace, a.webhook.id)).toBe(true);
    expect(await store.delete(workspace, a.webhook.id)).toBe(false);
    expect(await store.get(workspace, a.webhook.id)).toBeNull();
    expect(await store.saveProgress(a.webhook.id, 0, none, [attempt(a.webhook.id, 2)])).toBe(false);
    expect(await store.deliveries(a.webhook.id, { limit: 10 })).toEqual([]);
  });
};
