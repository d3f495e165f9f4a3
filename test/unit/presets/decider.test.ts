import { presetDecider, type AddPresetVersion, type DesignateVersion } from '../../../src/presets/decider';
import type { PresetCreated, PresetEvent, PresetVersionAdded, PresetVersionDesignated } from '../../../src/presets/events';
import { DeciderSpecification } from '../../support/deciderSpecification';

const given = DeciderSpecification.for(presetDecider);
const { evolve, initialState } = presetDecider;

const NOW = new Date('2026-03-01T10:00:00.000Z');
const add = (overrides: Partial<AddPresetVersion> = {}): AddPresetVersion => ({
  type: 'AddPresetVersion',
  workspaceId: 'ws-1',
  slug: 'bot',
  actorUserId: 'user-1',
  config: { model: 'm', temperature: 0.5 },
  systemPrompt: 'Be brief.',
  newPresetId: 'preset-1',
  newVersionId: 'version-1',
  now: NOW,
  ...overrides,
});
const designate = (version: number, overrides: Partial<DesignateVersion> = {}): DesignateVersion => ({
  type: 'DesignateVersion',
  workspaceId: 'ws-1',
  slug: 'bot',
  actorUserId: 'auditor',
  version,
  now: new Date('2026-03-02T00:00:00.000Z'),
  ...overrides,
});

const version = (n: number, id = `version-${n}`, creatorId = 'user-1') => ({
  id,
  number: n,
  config: { model: 'm', temperature: 0.5 },
  systemPrompt: 'Be brief.',
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
  data: { presetId: 'preset-1', versionId: `version-${n}`, versionNumber: n, previousVersionNumber: previous, occurredAt: '2026-03-02T00:00:00.000Z' },
});
const threeVersions: PresetEvent[] = [created, added(2), added(3)];

describe('adding a version', () => {
  it('creates the preset with version 1 when the stream is empty', () => {
    given([]).when(add()).then([created]);
  });

  it('adds the next version to an existing preset, keeping its id and ignoring the new preset id', () => {
    given([created])
      .when(add({ newPresetId: 'unused', newVersionId: 'version-2', actorUserId: 'user-2' }))
      .then([added(2, 'user-2')]);
    given([created, added(2)]).when(add({ newVersionId: 'version-3' })).then([added(3)]);
  });

  it('refuses to add a version to a stream that belongs to another preset', () => {
    given([created]).when(add({ slug: 'other' })).thenRejects({ type: 'PresetInconsistent' });
    given([created]).when(add({ workspaceId: 'ws-2' })).thenRejects({ type: 'PresetInconsistent' });
  });

  it('is pure: the same command and state decide the same events', () => {
    const state = [created].reduce(evolve, initialState());
    expect(presetDecider.decide(add({ newVersionId: 'v' }), state)).toEqual(presetDecider.decide(add({ newVersionId: 'v' }), state));
  });
});

describe('evolve', () => {
  it('starts absent, then tracks the versions and the designated one through the stream', () => {
    expect(initialState()).toEqual({ status: 'absent' });
    expect([created].reduce(evolve, initialState())).toEqual({
      status: 'active',
      presetId: 'preset-1',
      workspaceId: 'ws-1',
      slug: 'bot',
      versionIds: ['version-1'],
      designatedVersion: 1,
    });
    expect([created, added(2)].reduce(evolve, initialState())).toMatchObject({ versionIds: ['version-1', 'version-2'], designatedVersion: 2 });
    expect([...threeVersions, designated(1, 3)].reduce(evolve, initialState())).toMatchObject({ designatedVersion: 1 });
  });
});

describe('designating a version (rollback)', () => {
  it('designates an earlier version, naming the one it replaces', () => {
    given(threeVersions).when(designate(1)).then([designated(1, 3)]);
  });

  it('decides nothing when the version is already designated', () => {
    given(threeVersions).when(designate(3)).thenNothing();
    given([...threeVersions, designated(1, 3)]).when(designate(1)).thenNothing();
  });

  it('refuses a version that does not exist, and a preset that does not exist', () => {
    for (const n of [0, 4, 1.5, -1]) given(threeVersions).when(designate(n)).thenRejects({ type: 'VersionNotFound' });
    given([]).when(designate(1)).thenRejects({ type: 'PresetNotFound' });
  });

  it('a new version after a rollback is numbered after the last one and becomes designated', () => {
    given([...threeVersions, designated(1, 3)]).when(add({ newVersionId: 'version-4' })).then([added(4)]);
    expect([...threeVersions, designated(1, 3), added(4)].reduce(evolve, initialState())).toMatchObject({ designatedVersion: 4 });
  });
});
