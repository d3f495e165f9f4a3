import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { EventStoreAdapter } from '#src/eventstore/eventStore';
import { createKeyRing, type Caller } from '#src/auth/apiKeys';
import { SCOPES } from '#src/auth/keysFile';
import { createKeyCommandHandler } from '#src/keys/handler';
import { createLiveKeyRing } from '#src/keys/keyRing';
import { createPresetCommandHandler, type PresetCommandRequest } from '#src/presets/handler';
import { startProjector } from '#projections/projector';
import type { PresetRecord, ReadModel, VersionView } from '#projections/readmodel/readModel';
import { WORKSPACE_STREAM_PREFIX } from '#src/events/workspaceStreams';

/** A history made through the real command handler, with rollbacks, in two workspaces. */
export const WORKSPACES = [randomUUID(), randomUUID()] as const;
export const silentLogger = pino({ level: 'silent' });

export const makeHistory = async (eventStore: EventStoreAdapter, { extraPresets = 12 } = {}) => {
  let tick = Date.UTC(2026, 0, 1);
  const handle = createPresetCommandHandler({ eventStore, clock: () => new Date((tick += 1000)) });
  const by = (actorUserId: string) => ({ requestId: randomUUID(), actorUserId, sourceFormat: 'chat_completions' as const });
  const add = (workspaceId: string, slug: string, systemPrompt: string, config: Record<string, unknown> = { model: 'openai/gpt-4o' }) =>
    handle({ type: 'AddPresetVersion', data: { workspaceId, slug, config, systemPrompt }, metadata: by('user-1') });
  const designate = (workspaceId: string, slug: string, version: number, note?: string) =>
    handle({ type: 'DesignateVersion', data: { workspaceId, slug, version, note }, metadata: by('user-2') });
  const change = (
    workspaceId: string,
    slug: string,
    fields: { name?: string; description?: string | null; status?: 'active' | 'disabled' | 'archived' },
  ) => handle({ type: 'ChangePreset', data: { workspaceId, slug, ...fields }, metadata: by('user-3') });
  const label = (workspaceId: string, slug: string, name: string, version: number | null, note?: string) =>
    handle(
      version === null
        ? { type: 'RemoveLabel', data: { workspaceId, slug, label: name }, metadata: by('user-3') }
        : { type: 'MoveLabel', data: { workspaceId, slug, label: name, version, note }, metadata: by('user-3') },
    );
  const [a, b] = WORKSPACES;
  await add(a, 'support-bot', 'Be terse.', { model: 'openai/gpt-4o', temperature: 0.3 });
  await add(a, 'support-bot', 'Be kind.', {
    model: 'openai/gpt-4o',
    temperature: 0.5,
    tools: [{ type: 'function', function: { name: 'f' } }],
    // Integer-like keys: JavaScript puts them first, canonical JSON (the stored events) by their text.
    logit_bias: { '50256': -100, '1234': 5, '9': 1 },
  });
  await add(a, 'support-bot', 'Be brief.', { model: 'anthropic/claude-sonnet-4' });
  await designate(a, 'support-bot', 1); // a rollback
  await add(a, 'summarise', 'Summarise.');
  // A templated version: typed variables (keys not sorted) and messages, as issue 56 made them.
  await handle({
    type: 'AddPresetVersion',
    data: {
      workspaceId: a,
      slug: 'greeter',
      config: { temperature: 0.1, model: 'openai/gpt-4o' },
      systemPrompt: 'You support customers of {{company}}{{#if tone}}, {{tone}}{{/if}}.',
      templateFormat: 'handlebars',
      variables: {
        type: 'object',
        properties: { tone: { type: 'string', enum: ['warm', 'dry'] }, company: { type: 'string', description: 'Whose customers' } },
        required: ['company'],
      },
      messages: [{ role: 'user', content: 'Greet me on behalf of {{company}}.' }],
    },
    metadata: by('user-1'),
  });
  await add(b, 'support-bot', 'Another workspace, same slug.');
  await add(a, 'summarise', 'Summarise in one line.');
  await designate(a, 'summarise', 1);
  await designate(a, 'summarise', 2, 'and forward again');
  // The lifecycle: details, labels and statuses, with notes.
  await change(a, 'support-bot', { name: 'Support bot', description: 'Answers tickets.' });
  await label(a, 'support-bot', 'production', 1, 'the rolled-back one');
  await label(a, 'support-bot', 'staging', 3);
  await label(a, 'support-bot', 'production', 2);
  await label(a, 'support-bot', 'staging', null);
  // A rollout: production split, its weights changed, then promoted.
  const split = (name: string, shares: Array<[number, number]>) =>
    handle({
      type: 'SplitLabel',
      data: { workspaceId: a, slug: 'support-bot', label: name, split: shares.map(([version, weight]) => ({ version, weight })) },
      metadata: by('user-3'),
    });
  await split('production', [
    [2, 95],
    [3, 5],
  ]);
  await split('production', [
    [2, 50],
    [3, 50],
  ]);
  await label(a, 'support-bot', 'production', 3, 'promoted');
  await split('canary', [
    [1, 1],
    [3, 3],
  ]);
  await change(a, 'summarise', { status: 'disabled', description: null });
  await change(a, 'summarise', { status: 'archived' });
  await change(a, 'summarise', { status: 'disabled' }); // restored, but not to be used
  await change(b, 'support-bot', { status: 'archived' });
  await change(b, 'support-bot', { status: 'active', name: 'Restored' });
  for (let i = 0; i < extraPresets; i++) {
    for (let v = 0; v <= i % 3; v++) await add(i % 2 ? a : b, `p-${i}`, `prompt ${i}.${v}`, { model: 'm', seed: v });
  }
};

/** Projects with the live projector until it has passed the last preset event. */
export const projectLive = async (eventStore: EventStoreAdapter, readModel: ReadModel) => {
  const head = await eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX });
  const projector = await startProjector({ feed: eventStore, readModel, logger: silentLogger, retryDelayMs: 10 });
  const deadline = Date.now() + 10_000;
  while (head !== null && (projector.position() ?? -1n) < head && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await projector.stop();
  expect(projector.position()).toBe(head);
};

/** Everything a read model holds for these workspaces, through its public reads only. */
export const dump = async (readModel: ReadModel, workspaces: readonly string[] = WORKSPACES) => {
  const out: Array<{ record: PresetRecord | null; versions: VersionView[] }> = [];
  for (const ws of workspaces) {
    const { items, total } = await readModel.listPresets(ws, { offset: 0, limit: 1000 });
    expect(items).toHaveLength(total);
    for (const view of items) {
      const versions = await readModel.listVersions(view.id, { offset: 0, limit: 1000 });
      out.push({ record: await readModel.getPreset(ws, view.slug), versions: versions.items });
    }
  }
  return out;
};

/**
 * Every event type of release control and of the keys streams, in workspace A (the preset
 * `release-bot`) and both workspaces' keys streams, through the real command handlers.
 */
export const releaseHistory = async (eventStore: EventStoreAdapter) => {
  const [A, B] = WORKSPACES;
  let tick = Date.UTC(2026, 5, 1);
  const clock = () => new Date((tick += 1000));
  const handle = createPresetCommandHandler({ eventStore, clock });
  const run = (request: PresetCommandRequest) => handle(request);
  const bot = { workspaceId: A, slug: 'release-bot' };
  const as = (user: string, mayRelease = true) => ({ requestId: randomUUID(), actorUserId: user, mayRelease });
  for (const prompt of ['one', 'two', 'three', 'four']) {
    await run({ type: 'AddPresetVersion', data: { ...bot, config: { model: 'm' }, systemPrompt: prompt }, metadata: as('writer', false) });
  }
  await run({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 1 }, metadata: as('writer', false) });
  await run({ type: 'ProtectLabel', data: { ...bot, label: 'production', protected: true, approvals: 2 }, metadata: as('lead') });
  const proposed = await run({
    type: 'MoveLabel',
    data: { ...bot, label: 'production', version: 2, note: 'ship two' },
    metadata: as('lead'),
  });
  const first = (proposed.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ type: 'ApproveProposal', data: { ...bot, proposalId: first }, metadata: as('ann') });
  await run({ type: 'ApproveProposal', data: { ...bot, proposalId: first }, metadata: as('bob') }); // the second approval moves it
  const rejected = await run({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 3 }, metadata: as('lead') });
  const rejectedId = (rejected.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ type: 'RejectProposal', data: { ...bot, proposalId: rejectedId }, metadata: as('ann') });
  const withdrawn = await run({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 4 }, metadata: as('lead') });
  const withdrawnId = (withdrawn.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ type: 'WithdrawProposal', data: { ...bot, proposalId: withdrawnId }, metadata: as('lead') });
  await run({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 3 }, metadata: as('lead') }); // left open
  await run({ type: 'ProtectLabel', data: { ...bot, label: null, protected: true, approvals: 1 }, metadata: as('lead') });
  await run({ type: 'AddPresetVersion', data: { ...bot, config: { model: 'm' }, systemPrompt: 'five' }, metadata: as('writer', false) }); // not designated
  const designation = await run({ type: 'DesignateVersion', data: { ...bot, version: 5 }, metadata: as('lead') });
  const designationId = (designation.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ type: 'ApproveProposal', data: { ...bot, proposalId: designationId }, metadata: as('ann') });
  await run({ type: 'ProtectLabel', data: { ...bot, label: 'staging', protected: true, approvals: 0 }, metadata: as('lead') });
  await run({ type: 'ProtectLabel', data: { ...bot, label: 'staging', protected: false, approvals: 0 }, metadata: as('lead') });
  // With protected labels, archiving and restoring the preset, lowering a protection and removing a
  // protected label are proposals too (PresetChangeProposed), each applied by two other people.
  const approvedByTwo = async (proposal: { events: readonly { type: string; data: unknown }[] }) => {
    const proposalId = (proposal.events.find((e) => e.type === 'PresetChangeProposed')!.data as { proposalId: string }).proposalId;
    for (const user of ['ann', 'bob']) await run({ type: 'ApproveProposal', data: { ...bot, proposalId }, metadata: as(user) });
  };
  await approvedByTwo(await run({ type: 'ArchivePreset', data: bot, metadata: as('lead') }));
  await approvedByTwo(await run({ type: 'RestorePreset', data: bot, metadata: as('lead') }));
  await approvedByTwo(
    await run({ type: 'ProtectLabel', data: { ...bot, label: 'production', protected: true, approvals: 1 }, metadata: as('lead') }),
  );
  const removal = await run({ type: 'RemoveLabel', data: { ...bot, label: 'production' }, metadata: as('lead') });
  const removalId = (removal.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ type: 'ApproveProposal', data: { ...bot, proposalId: removalId }, metadata: as('ann') });
  // Keys in both workspaces' keys streams.
  const ring = createLiveKeyRing(createKeyRing([]));
  const keys = createKeyCommandHandler({ eventStore, ring, clock });
  const admin: Caller = { userId: 'admin', workspaces: [A, B], scopes: new Set(SCOPES), keyId: 'x', actForOthers: true };
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
