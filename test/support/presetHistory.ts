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
  const context = () => ({ requestId: randomUUID(), sourceFormat: 'chat_completions' as const });
  const add = (workspaceId: string, slug: string, systemPrompt: string, config: Record<string, unknown> = { model: 'openai/gpt-4o' }) =>
    handle({ type: 'AddPresetVersion', workspaceId, slug, actorUserId: 'user-1', config, systemPrompt }, context());
  const designate = (workspaceId: string, slug: string, version: number, note?: string) =>
    handle({ type: 'DesignateVersion', workspaceId, slug, actorUserId: 'user-2', version, note }, context());
  const change = (
    workspaceId: string,
    slug: string,
    fields: { name?: string; description?: string | null; status?: 'active' | 'disabled' | 'archived' },
  ) => handle({ type: 'ChangePreset', workspaceId, slug, actorUserId: 'user-3', ...fields }, context());
  const label = (workspaceId: string, slug: string, name: string, version: number | null, note?: string) =>
    handle(
      version === null
        ? { type: 'RemoveLabel', workspaceId, slug, actorUserId: 'user-3', label: name }
        : { type: 'MoveLabel', workspaceId, slug, actorUserId: 'user-3', label: name, version, note },
      context(),
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
  await handle(
    {
      type: 'AddPresetVersion',
      workspaceId: a,
      slug: 'greeter',
      actorUserId: 'user-1',
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
    context(),
  );
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
    handle(
      {
        type: 'SplitLabel',
        workspaceId: a,
        slug: 'support-bot',
        actorUserId: 'user-3',
        label: name,
        split: shares.map(([version, weight]) => ({ version, weight })),
      },
      context(),
    );
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
  // With protected labels, archiving and restoring the preset, lowering a protection and removing a
  // protected label are proposals too (PresetChangeProposed), each applied by two other people.
  const approvedByTwo = async (proposal: { events: readonly { type: string; data: unknown }[] }) => {
    const proposalId = (proposal.events.find((e) => e.type === 'PresetChangeProposed')!.data as { proposalId: string }).proposalId;
    for (const user of ['ann', 'bob']) await run({ ...as(user), type: 'ApproveProposal', proposalId });
  };
  await approvedByTwo(await run({ ...as('lead'), type: 'ArchivePreset' }));
  await approvedByTwo(await run({ ...as('lead'), type: 'RestorePreset' }));
  await approvedByTwo(await run({ ...as('lead'), type: 'ProtectLabel', label: 'production', protected: true, approvals: 1 }));
  const removal = await run({ ...as('lead'), type: 'RemoveLabel', label: 'production' });
  const removalId = (removal.events[0] as { data: { proposalId: string } }).data.proposalId;
  await run({ ...as('ann'), type: 'ApproveProposal', proposalId: removalId });
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
