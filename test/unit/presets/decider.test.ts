import * as E from 'fp-ts/Either';
import {
  presetDecider,
  type DecideProposal,
  type AddPresetVersion,
  type ChangePreset,
  type DesignateVersion,
  type MoveLabel,
  type PresetCommandMetadata,
  type ProtectLabel,
  type RemoveLabel,
  type SplitLabel,
} from '#src/presets/decider';
import type {
  PresetChangeProposed,
  LabelMoveApproved,
  LabelMoveProposed,
  LabelMoveWithdrawn,
  PresetLabelProtected,
  PresetCreated,
  PresetEvent,
  PresetLabelMoved,
  PresetLabelSplit,
  PresetStatus,
  PresetStatusChanged,
  PresetVersionAdded,
  PresetVersionDesignated,
} from '#src/presets/events';
import { DeciderSpecification } from '#support/deciderSpecification';

const given = DeciderSpecification.for(presetDecider);
const { evolve, initialState } = presetDecider;

const NOW = new Date('2026-03-01T10:00:00.000Z');
/** The preset every command here names. */
const bot = { workspaceId: 'ws-1', slug: 'bot' };
/** A command's metadata: who asks and when, and what release control and the handler add (`more`). */
const by = (actorUserId: string, now: Date, more: Partial<PresetCommandMetadata> = {}): PresetCommandMetadata => ({
  requestId: 'req-1',
  actorUserId,
  now,
  ...more,
});
const add = (data: Partial<AddPresetVersion['data']> = {}, metadata: Partial<AddPresetVersion['metadata']> = {}): AddPresetVersion => ({
  type: 'AddPresetVersion',
  data: { ...bot, config: { model: 'm', temperature: 0.5 }, systemPrompt: 'Be brief.', ...data },
  metadata: { ...by('user-1', NOW), newPresetId: 'preset-1', newVersionId: 'version-1', ...metadata },
});
const designate = (version: number, data: Partial<DesignateVersion['data']> = {}): DesignateVersion => ({
  type: 'DesignateVersion',
  data: { ...bot, version, ...data },
  metadata: by('auditor', new Date('2026-03-02T00:00:00.000Z')),
});

const version = (n: number, id = `version-${n}`, creatorId = 'user-1') => ({
  id,
  number: n,
  config: { model: 'm', temperature: 0.5 },
  systemPrompt: 'Be brief.',
  templateFormat: 'none' as const,
  variables: null,
  messages: [],
  creatorId,
});
const created: PresetCreated = {
  type: 'PresetCreated',
  data: {
    presetId: 'preset-1',
    workspaceId: 'ws-1',
    slug: 'bot',
    name: 'bot',
    creatorUserId: 'user-1',
    version: version(1),
    occurredAt: NOW.toISOString(),
  },
};
const added = (n: number, creatorId = 'user-1'): PresetVersionAdded => ({
  type: 'PresetVersionAdded',
  data: { presetId: 'preset-1', version: version(n, `version-${n}`, creatorId), occurredAt: NOW.toISOString() },
});
const designated = (n: number, previous: number): PresetVersionDesignated => ({
  type: 'PresetVersionDesignated',
  data: {
    presetId: 'preset-1',
    versionId: `version-${n}`,
    versionNumber: n,
    previousVersionNumber: previous,
    occurredAt: '2026-03-02T00:00:00.000Z',
  },
});
const threeVersions: PresetEvent[] = [created, added(2), added(3)];

describe('adding a version', () => {
  it('creates the preset with version 1 when the stream is empty', () => {
    given([]).when(add()).then([created]);
  });

  it('adds the next version to an existing preset, keeping its id and ignoring the new preset id', () => {
    given([created])
      .when(add({}, { newPresetId: 'unused', newVersionId: 'version-2', actorUserId: 'user-2' }))
      .then([added(2, 'user-2')]);
    given([created, added(2)])
      .when(add({}, { newVersionId: 'version-3' }))
      .then([added(3)]);
  });

  it('keeps a templated version’s fields on its event; a version without them is "none", with no variables or messages', () => {
    const template = {
      templateFormat: 'handlebars' as const,
      variables: { type: 'object', properties: { language: { type: 'string' } }, required: ['language'] },
      messages: [{ role: 'user' as const, content: 'In {{language}}, please.' }],
    };
    given([])
      .when(add(template))
      .then([{ ...created, data: { ...created.data, version: { ...version(1), ...template } } }]);
    given([created])
      .when(add(template, { newVersionId: 'version-2' }))
      .then([{ ...added(2), data: { ...added(2).data, version: { ...version(2), ...template } } }]);
  });

  it('refuses to add a version to a stream that belongs to another preset', () => {
    given([created])
      .when(add({ slug: 'other' }))
      .thenRejects({ type: 'PresetInconsistent' });
    given([created])
      .when(add({ workspaceId: 'ws-2' }))
      .thenRejects({ type: 'PresetInconsistent' });
  });

  it('is pure: the same command and state decide the same events', () => {
    const state = [created].reduce(evolve, initialState());
    expect(presetDecider.decide(add({}, { newVersionId: 'v' }), state)).toEqual(
      presetDecider.decide(add({}, { newVersionId: 'v' }), state),
    );
  });
});

describe('evolve', () => {
  it('starts absent, then tracks the versions and the designated one through the stream', () => {
    expect(initialState()).toEqual({ exists: false });
    expect([created].reduce(evolve, initialState())).toEqual({
      exists: true,
      presetId: 'preset-1',
      workspaceId: 'ws-1',
      slug: 'bot',
      name: 'bot',
      description: null,
      status: 'active',
      versionIds: ['version-1'],
      designatedVersion: 1,
      labels: {},
      splits: {},
      protectedLabels: {},
      designationApprovals: null,
      proposals: {},
      closedProposals: {},
    });
    expect([created, added(2)].reduce(evolve, initialState())).toMatchObject({
      versionIds: ['version-1', 'version-2'],
      designatedVersion: 2,
    });
    expect([...threeVersions, designated(1, 3)].reduce(evolve, initialState())).toMatchObject({ designatedVersion: 1 });
  });
});

describe('designating a version (rollback)', () => {
  it('designates an earlier version, naming the one it replaces', () => {
    given(threeVersions)
      .when(designate(1))
      .then([designated(1, 3)]);
  });

  it('decides nothing when the version is already designated', () => {
    given(threeVersions).when(designate(3)).thenNothing();
    given([...threeVersions, designated(1, 3)])
      .when(designate(1))
      .thenNothing();
  });

  it('refuses a version that does not exist, and a preset that does not exist', () => {
    for (const n of [0, 4, 1.5, -1]) given(threeVersions).when(designate(n)).thenRejects({ type: 'VersionNotFound' });
    given([]).when(designate(1)).thenRejects({ type: 'PresetNotFound' });
  });

  it('a new version after a rollback is numbered after the last one and becomes designated', () => {
    given([...threeVersions, designated(1, 3)])
      .when(add({}, { newVersionId: 'version-4' }))
      .then([added(4)]);
    expect([...threeVersions, designated(1, 3), added(4)].reduce(evolve, initialState())).toMatchObject({ designatedVersion: 4 });
  });
});

describe('the lifecycle', () => {
  const at = '2026-03-03T00:00:00.000Z';
  const change = (fields: Partial<ChangePreset['data']>): ChangePreset => ({
    type: 'ChangePreset',
    data: { ...bot, ...fields },
    metadata: by('editor', new Date(at)),
  });
  const label = (name: string, version: number, note?: string): MoveLabel => ({
    type: 'MoveLabel',
    data: { ...bot, label: name, version, ...(note ? { note } : {}) },
    metadata: by('releaser', new Date(at)),
  });
  const unlabel = (name: string): RemoveLabel => ({
    type: 'RemoveLabel',
    data: { ...bot, label: name },
    metadata: by('releaser', new Date(at)),
  });
  const statusChanged = (status: PresetStatus, previousStatus: PresetStatus): PresetStatusChanged => ({
    type: 'PresetStatusChanged',
    data: { presetId: 'preset-1', status, previousStatus, occurredAt: at },
  });
  const labelMoved = (name: string, n: number, previous: number | null, note?: string): PresetLabelMoved => ({
    type: 'PresetLabelMoved',
    data: {
      presetId: 'preset-1',
      label: name,
      versionNumber: n,
      versionId: `version-${n}`,
      previousVersionNumber: previous,
      occurredAt: at,
      ...(note ? { note } : {}),
    },
  });

  it('changes only the details that differ, in one event, and the status in another', () => {
    given(threeVersions)
      .when(change({ name: 'Support bot', description: 'Answers tickets.', note: 'renamed for the team' }))
      .then([
        {
          type: 'PresetDetailsChanged',
          data: {
            presetId: 'preset-1',
            name: 'Support bot',
            description: 'Answers tickets.',
            occurredAt: at,
            note: 'renamed for the team',
          },
        },
      ]);
    given(threeVersions)
      .when(change({ name: 'bot', description: 'Answers tickets.', status: 'disabled' }))
      .then([
        { type: 'PresetDetailsChanged', data: { presetId: 'preset-1', description: 'Answers tickets.', occurredAt: at } },
        statusChanged('disabled', 'active'),
      ]);
  });

  it('changes nothing when nothing differs', () => {
    given(threeVersions)
      .when(change({ name: 'bot', description: null, status: 'active' }))
      .thenNothing();
    given(threeVersions).when(change({})).thenNothing();
  });

  it('refuses to change a preset that does not exist', () => {
    given([])
      .when(change({ status: 'archived' }))
      .thenRejects({ type: 'PresetNotFound' });
  });

  it('freezes an archived preset except for its status and details, and restores it', () => {
    const archived = [...threeVersions, statusChanged('archived', 'active')];
    given(archived)
      .when(add({}, { newVersionId: 'version-4' }))
      .thenRejects({ type: 'PresetArchived' });
    given(archived).when(designate(1)).thenRejects({ type: 'PresetArchived' });
    given(archived).when(label('production', 2)).thenRejects({ type: 'PresetArchived' });
    given([...threeVersions, labelMoved('production', 2, null), statusChanged('archived', 'active')])
      .when(unlabel('production'))
      .thenRejects({ type: 'PresetArchived' });
    given(archived)
      .when(change({ description: 'kept for the audit' }))
      .then([{ type: 'PresetDetailsChanged', data: { presetId: 'preset-1', description: 'kept for the audit', occurredAt: at } }]);
    given(archived)
      .when(change({ status: 'disabled' }))
      .then([statusChanged('disabled', 'archived')]);
    given([...archived, statusChanged('active', 'archived')])
      .when(add({}, { newVersionId: 'version-4' }))
      .then([added(4)]);
  });

  it('a disabled preset still takes versions, labels and designations (only its use is refused)', () => {
    const disabled = [...threeVersions, statusChanged('disabled', 'active')];
    given(disabled)
      .when(add({}, { newVersionId: 'version-4' }))
      .then([added(4)]);
    given(disabled)
      .when(label('staging', 3))
      .then([labelMoved('staging', 3, null)]);
    given(disabled)
      .when(designate(2))
      .then([{ ...designated(2, 3), data: { ...designated(2, 3).data, occurredAt: '2026-03-02T00:00:00.000Z' } }]);
  });

  it('creates a label, moves it naming where it was, and stores nothing when it already names the version', () => {
    given(threeVersions)
      .when(label('production', 2, 'release 2'))
      .then([labelMoved('production', 2, null, 'release 2')]);
    given([...threeVersions, labelMoved('production', 2, null)])
      .when(label('production', 3))
      .then([labelMoved('production', 3, 2)]);
    given([...threeVersions, labelMoved('production', 2, null)])
      .when(label('production', 2))
      .thenNothing();
  });

  it('refuses a label on a version that does not exist', () => {
    for (const n of [0, 4, 2.5]) given(threeVersions).when(label('production', n)).thenRejects({ type: 'VersionNotFound' });
  });

  it('removes a label, naming the version it pointed at, and refuses one that is not there', () => {
    given([...threeVersions, labelMoved('staging', 3, null)])
      .when(unlabel('staging'))
      .then([{ type: 'PresetLabelRemoved', data: { presetId: 'preset-1', label: 'staging', versionNumber: 3, occurredAt: at } }]);
    given(threeVersions).when(unlabel('staging')).thenRejects({ type: 'LabelNotFound' });
    // Names of Object.prototype's own members are just labels.
    given(threeVersions).when(unlabel('constructor')).thenRejects({ type: 'LabelNotFound' });
    given(threeVersions)
      .when(label('constructor', 1))
      .then([labelMoved('constructor', 1, null)]);
  });

  it('folds labels, statuses and details into the state', () => {
    const state = [
      ...threeVersions,
      labelMoved('production', 2, null),
      labelMoved('staging', 3, null),
      labelMoved('production', 3, 2),
      { type: 'PresetLabelRemoved', data: { presetId: 'preset-1', label: 'staging', versionNumber: 3, occurredAt: at } } as PresetEvent,
      { type: 'PresetDetailsChanged', data: { presetId: 'preset-1', name: 'Bot', description: 'd', occurredAt: at } } as PresetEvent,
      statusChanged('disabled', 'active'),
    ].reduce(evolve, initialState());
    expect(state).toMatchObject({ labels: { production: 3 }, name: 'Bot', description: 'd', status: 'disabled', designatedVersion: 3 });
  });

  it('keeps a version note, and a designation note, on their events', () => {
    given([created])
      .when(add({ note: 'cheaper model' }, { newVersionId: 'version-2' }))
      .then([{ ...added(2), data: { ...added(2).data, version: { ...added(2).data.version, note: 'cheaper model' } } }]);
    given(threeVersions)
      .when(designate(1, { note: 'incident 42' }))
      .then([{ ...designated(1, 3), data: { ...designated(1, 3).data, note: 'incident 42' } }]);
  });
});

describe('splitting a label (rollouts)', () => {
  const at = '2026-03-04T00:00:00.000Z';
  const releaser = by('releaser', new Date(at));
  const split = (label: string, shares: [number, number][], note?: string): SplitLabel => ({
    type: 'SplitLabel',
    data: { ...bot, label, split: shares.map(([version, weight]) => ({ version, weight })), ...(note ? { note } : {}) },
    metadata: releaser,
  });
  const shares = (pairs: [number, number][]) => pairs.map(([n, weight]) => ({ versionNumber: n, versionId: `version-${n}`, weight }));
  const labelSplit = (
    label: string,
    pairs: [number, number][],
    previous: { number?: number; split?: [number, number][] } = {},
    note?: string,
  ): PresetLabelSplit => ({
    type: 'PresetLabelSplit',
    data: {
      presetId: 'preset-1',
      label,
      versions: shares(pairs),
      previousVersionNumber: previous.number ?? null,
      previousVersions: previous.split ? shares(previous.split) : null,
      occurredAt: at,
      ...(note ? { note } : {}),
    },
  });
  const moved = (label: string, n: number, previous: number | null): PresetLabelMoved => ({
    type: 'PresetLabelMoved',
    data: { presetId: 'preset-1', label, versionNumber: n, versionId: `version-${n}`, previousVersionNumber: previous, occurredAt: at },
  });
  const onProduction2 = [...threeVersions, moved('production', 2, null)];

  it('splits a label between versions, ascending by version, naming what it named before', () => {
    given(onProduction2)
      .when(
        split(
          'production',
          [
            [3, 5],
            [2, 95],
          ],
          'canary',
        ),
      )
      .then([
        labelSplit(
          'production',
          [
            [2, 95],
            [3, 5],
          ],
          { number: 2 },
          'canary',
        ),
      ]);
    given(threeVersions)
      .when(
        split('canary', [
          [1, 1],
          [3, 1],
        ]),
      )
      .then([
        labelSplit('canary', [
          [1, 1],
          [3, 1],
        ]),
      ]);
  });

  it('changes the weights naming the split before, and stores nothing for the same split in another order', () => {
    const canary = labelSplit(
      'production',
      [
        [2, 95],
        [3, 5],
      ],
      { number: 2 },
    );
    given([...onProduction2, canary])
      .when(
        split('production', [
          [2, 50],
          [3, 50],
        ]),
      )
      .then([
        labelSplit(
          'production',
          [
            [2, 50],
            [3, 50],
          ],
          {
            split: [
              [2, 95],
              [3, 5],
            ],
          },
        ),
      ]);
    given([...onProduction2, canary])
      .when(
        split('production', [
          [3, 5],
          [2, 95],
        ]),
      )
      .thenNothing();
  });

  it('ends the split when the label is moved to one version (promote or abort), naming the split it ended', () => {
    const canary = labelSplit(
      'production',
      [
        [2, 95],
        [3, 5],
      ],
      { number: 2 },
    );
    given([...onProduction2, canary])
      .when({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 3 }, metadata: releaser })
      .then([{ ...moved('production', 3, null), data: { ...moved('production', 3, null).data, previousVersions: canary.data.versions } }]);
    // Moving it back to the version it named before the split is an event too: the split ends.
    given([...onProduction2, canary])
      .when({ type: 'MoveLabel', data: { ...bot, label: 'production', version: 2 }, metadata: releaser })
      .then([{ ...moved('production', 2, null), data: { ...moved('production', 2, null).data, previousVersions: canary.data.versions } }]);
    const state = [...onProduction2, canary, moved('production', 3, null)].reduce(evolve, initialState());
    expect(state).toMatchObject({ labels: { production: 3 }, splits: {} });
  });

  it('folds a split into the state, apart from the plain labels', () => {
    const state = [
      ...onProduction2,
      labelSplit(
        'production',
        [
          [2, 95],
          [3, 5],
        ],
        { number: 2 },
      ),
    ].reduce(evolve, initialState());
    expect(state).toMatchObject({
      labels: {},
      splits: {
        production: shares([
          [2, 95],
          [3, 5],
        ]),
      },
    });
  });

  it('refuses a version that does not exist, an archived preset, and removing a split label', () => {
    given(threeVersions)
      .when(
        split('production', [
          [2, 1],
          [4, 1],
        ]),
      )
      .thenRejects({ type: 'VersionNotFound' });
    given([
      ...threeVersions,
      { type: 'PresetStatusChanged', data: { presetId: 'preset-1', status: 'archived', previousStatus: 'active', occurredAt: at } },
    ])
      .when(
        split('production', [
          [2, 1],
          [3, 1],
        ]),
      )
      .thenRejects({ type: 'PresetArchived' });
    given([
      ...onProduction2,
      labelSplit(
        'production',
        [
          [2, 95],
          [3, 5],
        ],
        { number: 2 },
      ),
    ])
      .when({ type: 'RemoveLabel', data: { ...bot, label: 'production' }, metadata: releaser })
      .thenRejects({ type: 'LabelSplit' });
  });
});

describe('release control (given / when / then)', () => {
  const at = new Date('2026-04-01T00:00:00.000Z');
  const protectedAt = (label: string | null, approvals: number): PresetLabelProtected => ({
    type: 'PresetLabelProtected',
    data: { presetId: 'preset-1', label, protected: true, approvals, occurredAt: at.toISOString() },
  });
  const production1: PresetLabelMoved = {
    type: 'PresetLabelMoved',
    data: {
      presetId: 'preset-1',
      label: 'production',
      versionNumber: 1,
      versionId: 'version-1',
      previousVersionNumber: null,
      occurredAt: at.toISOString(),
    },
  };
  const proposedBy = (user: string, version = 2, proposalId = 'p-1'): LabelMoveProposed => ({
    type: 'LabelMoveProposed',
    data: {
      presetId: 'preset-1',
      proposalId,
      label: 'production',
      versionNumber: version,
      versionId: `version-${version}`,
      previousVersionNumber: 1,
      proposerUserId: user,
      approvalsRequired: 2,
      occurredAt: at.toISOString(),
    },
  });
  const approvedBy = (user: string): LabelMoveApproved => ({
    type: 'LabelMoveApproved',
    data: { presetId: 'preset-1', proposalId: 'p-1', approverUserId: user, occurredAt: at.toISOString() },
  });
  const guarded = [...threeVersions, production1, protectedAt('production', 2)];
  const move = (actor: string, mayRelease: boolean, version = 2): MoveLabel => ({
    type: 'MoveLabel',
    data: { ...bot, label: 'production', version },
    metadata: by(actor, at, { mayRelease, newProposalId: 'p-1' }),
  });
  const decideOn = (type: DecideProposal['type'], actor: string, mayRelease = true, actorMakers?: string[]): DecideProposal => ({
    type,
    data: { ...bot, proposalId: 'p-1' },
    metadata: by(actor, at, { mayRelease, ...(actorMakers ? { actorMakers } : {}) }),
  });

  it('refuses any change of a protected label to a key without presets:release: move, remove, unprotect', () => {
    given(guarded).when(move('w', false)).thenRejects({ type: 'Protected', kind: 'forbidden' });
    given(guarded)
      .when({ type: 'RemoveLabel', data: { ...bot, label: 'production' }, metadata: by('w', at) })
      .thenRejects({ type: 'Protected', kind: 'forbidden' });
    given(guarded)
      .when({ type: 'ProtectLabel', data: { ...bot, label: 'production', protected: false, approvals: 0 }, metadata: by('w', at) })
      .thenRejects({ type: 'Protected', kind: 'forbidden' });
    // A label that is not protected moves as before.
    given(threeVersions).when(move('w', false)).then([labelMoved2()]);
  });

  it('makes a move of a label protected with approvals a proposal, applied by the last approval of another user', () => {
    given(guarded)
      .when(move('ann', true))
      .then([proposedBy('ann')]);
    given([...guarded, proposedBy('ann')])
      .when(decideOn('ApproveProposal', 'ann'))
      .thenRejects({ type: 'Protected', kind: 'forbidden' });
    given([...guarded, proposedBy('ann')])
      .when(decideOn('ApproveProposal', 'bob'))
      .then([approvedBy('bob')]);
    given([...guarded, proposedBy('ann'), approvedBy('bob')])
      .when(decideOn('ApproveProposal', 'bob'))
      .thenRejects({ kind: 'conflict', reason: 'already_approved' });
    given([...guarded, proposedBy('ann'), approvedBy('bob')])
      .when(decideOn('ApproveProposal', 'cid'))
      .then([approvedBy('cid'), { ...labelMoved2(), data: { ...labelMoved2().data, previousVersionNumber: 1, proposalId: 'p-1' } }]);
  });

  it('refuses a stale proposal, and closes one by rejection or by its proposer only', () => {
    const moved: PresetLabelMoved = {
      ...production1,
      data: { ...production1.data, versionNumber: 3, versionId: 'version-3', previousVersionNumber: 1 },
    };
    given([...guarded, proposedBy('ann'), moved])
      .when(decideOn('ApproveProposal', 'bob'))
      .thenRejects({ kind: 'conflict', reason: 'proposal_stale' });
    given([...guarded, proposedBy('ann')])
      .when(decideOn('WithdrawProposal', 'bob'))
      .thenRejects({ kind: 'forbidden' });
    const withdrawn: LabelMoveWithdrawn = {
      type: 'LabelMoveWithdrawn',
      data: { presetId: 'preset-1', proposalId: 'p-1', occurredAt: at.toISOString() },
    };
    given([...guarded, proposedBy('ann')])
      .when(decideOn('WithdrawProposal', 'ann', false))
      .then([withdrawn]);
    given([...guarded, proposedBy('ann'), withdrawn])
      .when(decideOn('ApproveProposal', 'bob'))
      .thenRejects({ kind: 'conflict', reason: 'proposal_closed' });
    given([...guarded, proposedBy('ann')])
      .when(decideOn('RejectProposal', 'bob', false))
      .thenRejects({ kind: 'forbidden' });
  });

  it('keeps a protected designation where it is when a version is added', () => {
    const [event] = E.getOrElseW(() => [])(
      presetDecider.decide(
        {
          type: 'AddPresetVersion',
          data: { ...bot, config: {}, systemPrompt: '' },
          metadata: { ...by('w', at), newPresetId: 'x', newVersionId: 'version-4' },
        },
        [...threeVersions, protectedAt(null, 0)].reduce(evolve, initialState()),
      ),
    );
    expect(event).toMatchObject({ type: 'PresetVersionAdded', data: { designated: false } });
    expect([...threeVersions, protectedAt(null, 0), event!].reduce(evolve, initialState())).toMatchObject({ designatedVersion: 3 });
  });

  describe('what one person cannot do alone', () => {
    const approve = (actor: string, makers: string[] = []): DecideProposal => decideOn('ApproveProposal', actor, true, makers);
    const madeBy = (makers: string[]): LabelMoveProposed => ({
      ...proposedBy('ann'),
      data: { ...proposedBy('ann').data, proposerMakers: makers },
    });
    const approvedWith = (user: string, makers: string[]): LabelMoveApproved => ({
      ...approvedBy(user),
      data: { ...approvedBy(user).data, approverMakers: makers },
    });
    const changeProposed = (change: PresetChangeProposed['data']['change'], label: string | null = 'production'): PresetChangeProposed => ({
      type: 'PresetChangeProposed',
      data: {
        presetId: 'preset-1',
        proposalId: 'p-1',
        label,
        change,
        proposerUserId: 'ann',
        approvalsRequired: 2,
        occurredAt: at.toISOString(),
      },
    });

    it('counts a key the proposer made (however far down) as the proposer, and the key that made the proposer’s too', () => {
      // A key made by ann's key (for ghost, by a key that may act for others) cannot approve ann's proposal.
      given([...guarded, proposedBy('ann')])
        .when(approve('ghost', ['ann']))
        .thenRejects({ type: 'Protected', kind: 'forbidden' });
      given([...guarded, proposedBy('ann')])
        .when(approve('ghost', ['someone', 'ann']))
        .thenRejects({ type: 'Protected', kind: 'forbidden' });
      // Nor may the user whose key made the proposer's.
      given([...guarded, madeBy(['admin'])])
        .when(approve('admin'))
        .thenRejects({ type: 'Protected', kind: 'forbidden' });
      // Two keys an admin made for two other users are two people: neither made the other.
      given([...guarded, madeBy(['admin'])])
        .when(approve('bob', ['admin']))
        .then([approvedWith('bob', ['admin'])]);
    });

    it('counts one person once: an approver, and keys made from theirs (or theirs from it), are one approval', () => {
      given([...guarded, proposedBy('ann'), approvedBy('bob')])
        .when(approve('ghost', ['bob']))
        .thenRejects({ kind: 'conflict', reason: 'already_approved' });
      given([...guarded, proposedBy('ann'), approvedWith('ghost', ['bob'])])
        .when(approve('bob'))
        .thenRejects({ kind: 'conflict', reason: 'already_approved' });
    });

    it('makes lowering or lifting a protection with approvals a proposal; raising one applies at once', () => {
      const protect = (approvals: number, isProtected = true): ProtectLabel => ({
        type: 'ProtectLabel',
        data: { ...bot, label: 'production', protected: isProtected, approvals },
        metadata: by('ann', at, { mayRelease: true, newProposalId: 'p-1' }),
      });
      given(guarded)
        .when(protect(0, false))
        .then([changeProposed({ kind: 'protect', protected: false, approvals: 0, previousApprovals: 2 })]);
      given(guarded)
        .when(protect(1))
        .then([changeProposed({ kind: 'protect', protected: true, approvals: 1, previousApprovals: 2 })]);
      given([...threeVersions, production1, protectedAt('production', 1)])
        .when(protect(2))
        .then([protectedAt('production', 2)]);
      // Applied by the last approval; stale once the protection changed otherwise.
      const lift = changeProposed({ kind: 'protect', protected: false, approvals: 0, previousApprovals: 2 });
      given([...guarded, lift, approvedBy('bob')])
        .when(approve('cid'))
        .then([
          approvedBy('cid'),
          {
            type: 'PresetLabelProtected',
            data: {
              presetId: 'preset-1',
              label: 'production',
              protected: false,
              approvals: 0,
              occurredAt: at.toISOString(),
              proposalId: 'p-1',
            },
          },
        ]);
      given([...guarded, lift, protectedAt('production', 1)])
        .when(approve('cid'))
        .thenRejects({ kind: 'conflict', reason: 'proposal_stale' });
    });

    it('makes removing a label with approvals a proposal, applied by the last approval', () => {
      given(guarded)
        .when({
          type: 'RemoveLabel',
          data: { ...bot, label: 'production' },
          metadata: by('ann', at, { mayRelease: true, newProposalId: 'p-1' }),
        })
        .then([changeProposed({ kind: 'remove_label', versionNumber: 1 })]);
      given([...guarded, changeProposed({ kind: 'remove_label', versionNumber: 1 }), approvedBy('bob')])
        .when(approve('cid'))
        .then([
          approvedBy('cid'),
          {
            type: 'PresetLabelRemoved',
            data: { presetId: 'preset-1', label: 'production', versionNumber: 1, occurredAt: at.toISOString(), proposalId: 'p-1' },
          },
        ]);
    });

    it('lets only a releaser archive or disable a preset with a protected target, under the rules of a move', () => {
      const status = (actor: string, mayRelease: boolean, to: PresetStatus): ChangePreset => ({
        type: 'ChangePreset',
        data: { ...bot, status: to },
        metadata: by(actor, at, { mayRelease, newProposalId: 'p-1' }),
      });
      given(guarded)
        .when(status('w', false, 'disabled'))
        .thenRejects({ type: 'Protected', kind: 'forbidden', reason: 'protected' });
      given(guarded)
        .when({ type: 'ArchivePreset', data: bot, metadata: by('w', at, { mayRelease: false }) })
        .thenRejects({ type: 'Protected', kind: 'forbidden', reason: 'protected' });
      given(guarded)
        .when(status('ann', true, 'disabled'))
        .then([changeProposed({ kind: 'status', status: 'disabled', previousStatus: 'active' }, null)]);
      // With approvals 0 a releaser changes it at once, as a move.
      given([...threeVersions, protectedAt(null, 0)])
        .when(status('ann', true, 'disabled'))
        .then([
          {
            type: 'PresetStatusChanged',
            data: { presetId: 'preset-1', status: 'disabled', previousStatus: 'active', occurredAt: at.toISOString() },
          },
        ]);
      // Restoring an archived preset is a status change too, approved though the preset is archived.
      const archivedNow: PresetStatusChanged = {
        type: 'PresetStatusChanged',
        data: { presetId: 'preset-1', status: 'archived', previousStatus: 'active', occurredAt: at.toISOString() },
      };
      const restore = changeProposed({ kind: 'status', status: 'active', previousStatus: 'archived' }, null);
      given([...guarded, archivedNow, restore, approvedBy('bob')])
        .when(approve('cid'))
        .then([
          approvedBy('cid'),
          {
            type: 'PresetStatusChanged',
            data: { presetId: 'preset-1', status: 'active', previousStatus: 'archived', occurredAt: at.toISOString(), proposalId: 'p-1' },
          },
        ]);
    });
  });

  const labelMoved2 = (): PresetLabelMoved => ({
    type: 'PresetLabelMoved',
    data: {
      presetId: 'preset-1',
      label: 'production',
      versionNumber: 2,
      versionId: 'version-2',
      previousVersionNumber: null,
      occurredAt: at.toISOString(),
    },
  });
});

describe('splitting a protected label (rollouts under release control)', () => {
  const at = '2026-05-01T00:00:00.000Z';
  const production1: PresetLabelMoved = {
    type: 'PresetLabelMoved',
    data: {
      presetId: 'preset-1',
      label: 'production',
      versionNumber: 1,
      versionId: 'version-1',
      previousVersionNumber: null,
      occurredAt: at,
    },
  };
  const protectedWith = (approvals: number): PresetLabelProtected => ({
    type: 'PresetLabelProtected',
    data: { presetId: 'preset-1', label: 'production', protected: true, approvals, occurredAt: at },
  });
  const canary = (mayRelease: boolean): SplitLabel => ({
    type: 'SplitLabel',
    data: {
      ...bot,
      label: 'production',
      split: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
    },
    metadata: by('ann', new Date(at), { mayRelease }),
  });
  const splitEvent: PresetLabelSplit = {
    type: 'PresetLabelSplit',
    data: {
      presetId: 'preset-1',
      label: 'production',
      versions: [
        { versionNumber: 1, versionId: 'version-1', weight: 90 },
        { versionNumber: 2, versionId: 'version-2', weight: 10 },
      ],
      previousVersionNumber: 1,
      previousVersions: null,
      occurredAt: at,
    },
  };

  it('refuses a split of a protected label to a key without presets:release, as it refuses a move (403)', () => {
    given([...threeVersions, production1, protectedWith(0)])
      .when(canary(false))
      .thenRejects({ type: 'Protected', kind: 'forbidden', reason: 'protected' });
    given([...threeVersions, production1, protectedWith(2)])
      .when(canary(false))
      .thenRejects({ type: 'Protected', kind: 'forbidden', reason: 'protected' });
  });

  it('lets a key with presets:release split a label protected without approvals', () => {
    given([...threeVersions, production1, protectedWith(0)])
      .when(canary(true))
      .then([splitEvent]);
  });

  it('refuses to split a label protected with approvals, even with presets:release (409 label_protected_split), and stores nothing', () => {
    given([...threeVersions, production1, protectedWith(1)])
      .when(canary(true))
      .thenRejects({ type: 'ProtectedSplit', kind: 'conflict', reason: 'label_protected_split' });
  });

  it('still lets an unprotected label be split by a key without presets:release', () => {
    given([...threeVersions, production1])
      .when(canary(false))
      .then([splitEvent]);
  });

  it('ends a split of a protected label only by the rule for moves: a proposal, whose approval names the split it ended', () => {
    const history = [...threeVersions, production1, splitEvent, protectedWith(1)];
    const proposed: LabelMoveProposed = {
      type: 'LabelMoveProposed',
      data: {
        presetId: 'preset-1',
        proposalId: 'p-1',
        label: 'production',
        versionNumber: 2,
        versionId: 'version-2',
        previousVersionNumber: null,
        proposerUserId: 'ann',
        approvalsRequired: 1,
        occurredAt: at,
      },
    };
    given(history)
      .when({
        type: 'MoveLabel',
        data: { ...bot, label: 'production', version: 2 },
        metadata: by('ann', new Date(at), { mayRelease: true, newProposalId: 'p-1' }),
      })
      .then([proposed]);
    given([...history, proposed])
      .when({ type: 'ApproveProposal', data: { ...bot, proposalId: 'p-1' }, metadata: by('bob', new Date(at), { mayRelease: true }) })
      .then([
        { type: 'LabelMoveApproved', data: { presetId: 'preset-1', proposalId: 'p-1', approverUserId: 'bob', occurredAt: at } },
        {
          type: 'PresetLabelMoved',
          data: {
            presetId: 'preset-1',
            label: 'production',
            versionNumber: 2,
            versionId: 'version-2',
            previousVersionNumber: null,
            previousVersions: splitEvent.data.versions,
            occurredAt: at,
            proposalId: 'p-1',
          },
        },
      ]);
  });
});
