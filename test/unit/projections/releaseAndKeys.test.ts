import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { openMemoryEventStore } from '#src/eventstore/memory';
import { keysStreamName } from '#src/keys/streamName';
import { decodeWorkspaceEvent as decodeEvent } from '#src/workspaceLog/catalog';
import { openMemoryReadModel } from '#projections/readmodel/memory';
import { rebuildInto } from '#projections/rebuild';
import { verifyReadModel } from '#projections/verify';
import { dump, makeHistory, projectLive, releaseHistory, WORKSPACES } from '#support/presetHistory';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/**
 * A mixed run of every new event type (keys made and revoked, labels and the designation protected,
 * proposals proposed, approved, applied, rejected and withdrawn, a version added under a protected
 * designation), beside the ordinary history: the live projector, `rebuild` and `verify` agree.
 */
const [A] = WORKSPACES;

describe('release control and keys through the projector, rebuild and verify', () => {
  let store: EventStoreAdapter;
  beforeEach(() => {
    store = openMemoryEventStore();
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores every new event type, and a key only as its hash', async () => {
    await makeHistory(store, { extraPresets: 2 });
    const made = await releaseHistory(store);
    const { key } = made;
    const all = await store.readAll({ limit: 10_000, streamPrefix: WORKSPACE_STREAM_PREFIX });
    const types = new Set(all.map((e) => e.type));
    for (const type of [
      'ApiKeyCreated',
      'ApiKeyRevoked',
      'PresetLabelProtected',
      'LabelMoveProposed',
      'LabelMoveApproved',
      'LabelMoveRejected',
      'LabelMoveWithdrawn',
      'PresetChangeProposed',
    ]) {
      expect(types).toContain(type);
    }
    expect(JSON.stringify(all.map((e) => [e.data, e.metadata]))).not.toContain(key);
    // Made acting in A and revoked acting in B, for A and B: in both workspaces' keys streams.
    for (const ws of WORKSPACES) {
      const keyEvents = (await store.read(keysStreamName(ws)))
        .map((e) => decodeEvent(e))
        .filter((e) => (e.event.data as { keyId?: string }).keyId === made.record.id);
      expect(keyEvents.map((e) => [e.event.type, e.metadata.actorUserId])).toEqual([
        ['ApiKeyCreated', 'admin'],
        ['ApiKeyRevoked', 'admin'],
      ]);
    }
    // The preset ends as its proposals left it: restored, production removed.
    const folded = (await store.read(`preset-${A}-release-bot`)).map((e) => decodeEvent(e).event.type);
    expect(folded.slice(-3)).toEqual(['PresetChangeProposed', 'LabelMoveApproved', 'PresetLabelRemoved']);
  });

  it.each([1, 7, 5000])('rebuilds what the live projector built, and verify finds no difference (pages of %i)', async (pageSize) => {
    await makeHistory(store, { extraPresets: 2 });
    await releaseHistory(store);
    const live = openMemoryReadModel();
    await projectLive(store, live);
    const report = await verifyReadModel(store, live);
    expect(report.differences).toEqual([]);
    expect(report.events).toBe(Number(await store.headPosition()));
    const rebuilt = openMemoryReadModel();
    await rebuildInto(store, rebuilt, { log: () => undefined, pageSize });
    const expected = await dump(live);
    expect(await dump(rebuilt)).toEqual(expected);
    // What the release history leaves: production moved by the approved proposal, then removed by
    // one, its protection lowered by one; the designation by approval; archived and restored by
    // proposals; one move proposal left open (stale now).
    const bot = expected.find((p) => p.record?.view.slug === 'release-bot')!.record!.view;
    expect(bot).toMatchObject({
      status: 'active',
      labels: {},
      protected_labels: { production: { approvals: 1 } },
      designation_protection: { approvals: 1 },
      designated_version: { version: 5 },
    });
    expect(bot.proposals).toEqual([
      expect.objectContaining({ label: 'production', change: 'move', version: 3, previous_version: 2, approved_by: [] }),
    ]);
  });
});
