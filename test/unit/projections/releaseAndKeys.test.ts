import { randomUUID } from 'node:crypto';
import type { Caller } from '../../../src/auth/apiKeys';
import { createKeyRing } from '../../../src/auth/apiKeys';
import { SCOPES } from '../../../src/auth/keysFile';
import type { EventStoreAdapter } from '../../../src/eventstore/eventStore';
import { openMemoryEventStore } from '../../../src/eventstore/memory';
import { createKeyCommandHandler } from '../../../src/keys/handler';
import { createLiveKeyRing } from '../../../src/keys/keyRing';
import { keysStreamName } from '../../../src/keys/streamName';
import { createPresetCommandHandler, type PresetCommandRequest } from '../../../src/presets/handler';
import { decodeEvent } from '../../../src/presets/events';
import { PRESET_STREAM_PREFIX } from '../../../src/presets/streamName';
import { openMemoryReadModel } from '../../../projections/readmodel/memory';
import { rebuildInto } from '../../../projections/rebuild';
import { verifyReadModel } from '../../../projections/verify';
import { dump, makeHistory, projectLive, WORKSPACES } from '../../support/presetHistory';

/**
 * A mixed run of every new event type (keys made and revoked, labels and the designation protected,
 * proposals proposed, approved, applied, rejected and withdrawn, a version added under a protected
 * designation), beside the ordinary history: the live projector, `rebuild` and `verify` agree.
 */
const [A, B] = WORKSPACES;

const releaseHistory = async (eventStore: EventStoreAdapter) => {
  let tick = Date.UTC(2026, 5, 1);
  const clock = () => new Date((tick += 1000));
  const handle = createPresetCommandHandler({ eventStore, clock });
  const run = (request: PresetCommandRequest) => handle(request, { requestId: randomUUID() });
  const as = (user: string, mayRelease = true) => ({ workspaceId: A, slug: 'release-bot', actorUserId: user, mayRelease });
  for (const prompt of ['one', 'two', 'three', 'four']) {
    await run({ ...as('writer', false), type: 'AddPresetVersion', config: { model: 'm' }, systemPrompt: prompt });
  }
  await run({ ...as('writer', false), type: 'MoveLabel', label: 'production', version: 1 });
  await run({ ...as('lead'), type: 'ProtectLabel', label: 'production', protected: true, approvals: 2 });
  const proposed = await run({ ...as('lead'), type: 'MoveLabel', label: 'production', version: 2, note: 'ship two' });
  const first = (proposed.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ ...as('ann'), type: 'ApproveProposal', proposalId: first });
  await run({ ...as('bob'), type: 'ApproveProposal', proposalId: first }); // the second approval moves it
  const rejected = await run({ ...as('lead'), type: 'MoveLabel', label: 'production', version: 3 });
  await run({ ...as('ann'), type: 'RejectProposal', proposalId: (rejected.events[0] as { data: { proposalId: string } }).data.proposalId });
  const withdrawn = await run({ ...as('lead'), type: 'MoveLabel', label: 'production', version: 4 });
  await run({
    ...as('lead'),
    type: 'WithdrawProposal',
    proposalId: (withdrawn.events[0] as { data: { proposalId: string } }).data.proposalId,
  });
  await run({ ...as('lead'), type: 'MoveLabel', label: 'production', version: 3 }); // left open
  await run({ ...as('lead'), type: 'ProtectLabel', label: null, protected: true, approvals: 1 });
  await run({ ...as('writer', false), type: 'AddPresetVersion', config: { model: 'm' }, systemPrompt: 'five' }); // not designated
  const designation = await run({ ...as('lead'), type: 'DesignateVersion', version: 5 });
  await run({
    ...as('ann'),
    type: 'ApproveProposal',
    proposalId: (designation.events[0] as { data: { proposalId: string } }).data.proposalId,
  });
  await run({ ...as('lead'), type: 'ProtectLabel', label: 'staging', protected: true, approvals: 0 });
  await run({ ...as('lead'), type: 'ProtectLabel', label: 'staging', protected: false, approvals: 0 });
  await run({ ...as('writer', false), type: 'ArchivePreset' });
  await run({ ...as('writer', false), type: 'RestorePreset' });
  // Keys in both workspaces' keys streams.
  const ring = createLiveKeyRing(createKeyRing([]));
  const keys = createKeyCommandHandler({ eventStore, ring, clock });
  const admin: Caller = { userId: 'admin', workspaces: [A, B], scopes: new Set(SCOPES), keyId: 'x' };
  const made = await keys.create(
    { userId: 'ci', name: 'CI', scopes: ['presets:read'], workspaces: [A, B], expiresAt: null },
    { requestId: 'r', caller: admin, workspaceId: A },
  );
  await keys.create(
    { userId: 'ops', name: null, scopes: ['presets:write'], workspaces: [B], expiresAt: null },
    { requestId: 'r', caller: admin, workspaceId: B },
  );
  await keys.revoke(made.record.id, { requestId: 'r', caller: admin, workspaceId: B });
  return made;
};

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
    const { key } = await releaseHistory(store);
    const all = await store.readAll({ limit: 10_000, streamPrefix: PRESET_STREAM_PREFIX });
    const types = new Set(all.map((e) => e.type));
    for (const type of [
      'ApiKeyCreated',
      'ApiKeyRevoked',
      'PresetLabelProtected',
      'LabelMoveProposed',
      'LabelMoveApproved',
      'LabelMoveRejected',
      'LabelMoveWithdrawn',
    ]) {
      expect(types).toContain(type);
    }
    expect(JSON.stringify(all.map((e) => [e.data, e.metadata]))).not.toContain(key);
    // Revoked from workspace B, in the stream the key was made in (A's).
    const keyEvents = (await store.read(keysStreamName(A))).map((e) => decodeEvent(e));
    expect(keyEvents.map((e) => [e.event.type, e.metadata.actorUserId])).toEqual([
      ['ApiKeyCreated', 'admin'],
      ['ApiKeyRevoked', 'admin'],
    ]);
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
    // What the release history leaves: production moved by the approved proposal, one proposal open, the designation by approval.
    const bot = expected.find((p) => p.record?.view.slug === 'release-bot')!.record!.view;
    expect(bot).toMatchObject({
      status: 'active',
      labels: { production: 2 },
      protected_labels: { production: { approvals: 2 } },
      designation_protection: { approvals: 1 },
      designated_version: { version: 5 },
    });
    expect(bot.proposals).toEqual([expect.objectContaining({ label: 'production', version: 3, previous_version: 2, approved_by: [] })]);
  });
});
