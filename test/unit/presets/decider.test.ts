import * as E from 'fp-ts/Either';
import { decide, evolve, initialState, type AddPresetVersion, type DesignateVersion, type PresetState } from '../../../src/presets/decider';
import type { PresetEvent } from '../../../src/presets/events';

const command = (overrides: Partial<AddPresetVersion> = {}): AddPresetVersion => ({
  type: 'AddPresetVersion', workspaceId: 'ws-1', slug: 'bot', actorUserId: 'user-1',
  config: { model: 'm', temperature: 0.5 }, systemPrompt: 'Be brief.', newPresetId: 'preset-1', newVersionId: 'version-1',
  now: new Date('2026-03-01T10:00:00.000Z'), ...overrides,
});

const fold = (events: PresetEvent[]): PresetState => events.reduce(evolve, initialState());
/** The one event a decision is expected to produce. */
const right = (e: E.Either<unknown, PresetEvent[]>): PresetEvent => {
  if (E.isLeft(e)) throw new Error(`expected a decision, got ${JSON.stringify(e.left)}`);
  expect(e.right).toHaveLength(1);
  return e.right[0]!;
};

describe('decide', () => {
  it('creates the preset with version 1 when the stream is empty', () => {
    expect(right(decide(command(), initialState()))).toEqual({
      type: 'PresetCreated',
      data: {
        presetId: 'preset-1', workspaceId: 'ws-1', slug: 'bot', name: 'bot', creatorUserId: 'user-1',
        version: { id: 'version-1', number: 1, config: { model: 'm', temperature: 0.5 }, systemPrompt: 'Be brief.', creatorId: 'user-1' },
        occurredAt: '2026-03-01T10:00:00.000Z',
      },
    });
  });

  it('adds the next version to an existing preset, keeping its id and ignoring the new preset id', () => {
    const created = right(decide(command(), initialState()));
    const second = right(decide(command({ newPresetId: 'unused', newVersionId: 'version-2', actorUserId: 'user-2' }), fold([created])));
    expect(second).toEqual({
      type: 'PresetVersionAdded',
      data: {
        presetId: 'preset-1',
        version: { id: 'version-2', number: 2, config: { model: 'm', temperature: 0.5 }, systemPrompt: 'Be brief.', creatorId: 'user-2' },
        occurredAt: '2026-03-01T10:00:00.000Z',
      },
    });
    const third = right(decide(command({ newVersionId: 'version-3' }), fold([created, second])));
    expect(third.type === 'PresetVersionAdded' && third.data.version.number).toBe(3);
  });

  it('refuses to add a version to a stream that belongs to another preset', () => {
    const created = right(decide(command(), initialState()));
    expect(E.isLeft(decide(command({ slug: 'other' }), fold([created])))).toBe(true);
    expect(E.isLeft(decide(command({ workspaceId: 'ws-2' }), fold([created])))).toBe(true);
  });

  it('is pure: the same command and state decide the same event', () => {
    const state = fold([right(decide(command(), initialState()))]);
    expect(decide(command({ newVersionId: 'v' }), state)).toEqual(decide(command({ newVersionId: 'v' }), state));
  });
});

describe('evolve', () => {
  it('tracks the last version number through the stream', () => {
    const created = right(decide(command(), initialState()));
    expect(fold([created])).toEqual({ status: 'active', presetId: 'preset-1', workspaceId: 'ws-1', slug: 'bot', versionIds: ['version-1'], designatedVersion: 1 });
    const v2 = right(decide(command({ newVersionId: 'v2' }), fold([created])));
    expect(fold([created, v2])).toMatchObject({ versionIds: ['version-1', 'v2'], designatedVersion: 2 });
  });
  it('starts absent', () => {
    expect(initialState()).toEqual({ status: 'absent' });
  });
});

describe('designating a version (rollback)', () => {
  const designate = (version: number, overrides: Partial<DesignateVersion> = {}): DesignateVersion => ({
    type: 'DesignateVersion', workspaceId: 'ws-1', slug: 'bot', actorUserId: 'auditor', version, now: new Date('2026-03-02T00:00:00.000Z'), ...overrides,
  });
  const threeVersions = () => {
    const events: PresetEvent[] = [right(decide(command(), initialState()))];
    for (const id of ['version-2', 'version-3']) events.push(right(decide(command({ newVersionId: id }), fold(events))));
    return events;
  };

  it('designates an earlier version, naming the one it replaces', () => {
    const events = threeVersions();
    expect(right(decide(designate(1), fold(events)))).toEqual({
      type: 'PresetVersionDesignated',
      data: { presetId: 'preset-1', versionId: 'version-1', versionNumber: 1, previousVersionNumber: 3, occurredAt: '2026-03-02T00:00:00.000Z' },
    });
  });

  it('decides nothing when the version is already designated', () => {
    expect(decide(designate(3), fold(threeVersions()))).toEqual(E.right([]));
  });

  it('refuses a version that does not exist, and a preset that does not exist', () => {
    const state = fold(threeVersions());
    for (const n of [0, 4, 1.5, -1]) expect(decide(designate(n), state)).toEqual(E.left(expect.objectContaining({ type: 'VersionNotFound' })));
    expect(decide(designate(1), initialState())).toEqual(E.left(expect.objectContaining({ type: 'PresetNotFound' })));
  });

  it('a new version after a rollback is numbered after the last one and becomes designated', () => {
    const events = threeVersions();
    events.push(right(decide(designate(1), fold(events))));
    expect(fold(events)).toMatchObject({ designatedVersion: 1 });
    const added = right(decide(command({ newVersionId: 'version-4' }), fold(events)));
    expect(added.type === 'PresetVersionAdded' && added.data.version.number).toBe(4);
    expect(fold([...events, added])).toMatchObject({ designatedVersion: 4 });
  });
});
