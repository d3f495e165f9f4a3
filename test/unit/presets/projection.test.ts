import fc from 'fast-check';
import { projectPresetEvent, ProjectionGap } from '#projections/presetProjection';
import type { PresetEvent, StoredPresetEvent } from '#src/presets/events';
import { presetViewJson, versionViewJson } from '#projections/readmodel/documentJson';
import type { PresetRecord, PresetView } from '#projections/readmodel/readModel';

const stored = (event: PresetEvent, revision: bigint): StoredPresetEvent => ({
  event,
  revision,
  position: revision + 100n,
  id: `e${revision}`,
  stream: 'preset-ws-bot',
  recordedAt: new Date(),
  metadata: { requestId: 'r', actorUserId: 'u1', sourceFormat: 'messages', schemaVersion: 3 },
});
const created: PresetEvent = {
  type: 'PresetCreated',
  data: {
    presetId: 'p1',
    workspaceId: 'ws',
    slug: 'bot',
    name: 'bot',
    creatorUserId: 'u1',
    occurredAt: '2026-01-01T00:00:00.000Z',
    version: {
      id: 'v1',
      number: 1,
      config: { model: 'm' },
      systemPrompt: 'S1',
      templateFormat: 'none',
      variables: null,
      messages: [],
      creatorId: 'u1',
    },
  },
};
const added: PresetEvent = {
  type: 'PresetVersionAdded',
  data: {
    presetId: 'p1',
    occurredAt: '2026-01-02T00:00:00.000Z',
    version: {
      id: 'v2',
      number: 2,
      config: { top_k: 5 },
      systemPrompt: '',
      templateFormat: 'none',
      variables: null,
      messages: [],
      creatorId: 'u2',
    },
  },
};

describe('the preset projection', () => {
  it('turns PresetCreated into the response document and its first version', () => {
    const changes = projectPresetEvent(null, stored(created, 0n));
    const version = {
      id: 'v1',
      preset_id: 'p1',
      version: 1,
      config: { model: 'm' },
      system_prompt: 'S1',
      template_format: 'none',
      variables: null,
      messages: [],
      note: null,
      source_format: 'messages',
      creator_id: 'u1',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    expect(changes).toEqual([
      { kind: 'putVersion', version },
      {
        kind: 'putPreset',
        record: {
          revision: 0n,
          view: {
            id: 'p1',
            name: 'bot',
            slug: 'bot',
            description: null,
            status: 'active',
            status_updated_at: null,
            created_at: '2026-01-01T00:00:00.000Z',
            updated_at: '2026-01-01T00:00:00.000Z',
            creator_user_id: 'u1',
            workspace_id: 'ws',
            labels: {},
            designated_version_id: 'v1',
            designated_version: version,
          },
        },
      },
    ]);
  });

  it('designates an added version and moves updated_at, keeping what the preset was created with', () => {
    const [, put] = projectPresetEvent(null, stored(created, 0n));
    const current = (put as { record: PresetRecord }).record;
    const changes = projectPresetEvent(current, stored(added, 1n));
    const record = (changes[1] as { record: PresetRecord }).record;
    expect(record.revision).toBe(1n);
    expect(record.view).toMatchObject({
      id: 'p1',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      designated_version_id: 'v2',
      creator_user_id: 'u1',
    });
    expect(record.view.designated_version).toMatchObject({ version: 2, system_prompt: '', creator_id: 'u2', config: { top_k: 5 } });
  });

  it('keeps the format each version was made from, from its event, and null when the event did not say', () => {
    const [, put] = projectPresetEvent(null, {
      ...stored(created, 0n),
      metadata: { requestId: 'r', actorUserId: 'u1', sourceFormat: 'responses', schemaVersion: 3 },
    });
    const current = (put as { record: PresetRecord }).record;
    expect(current.view.designated_version.source_format).toBe('responses');
    const [version] = projectPresetEvent(current, {
      ...stored(added, 1n),
      metadata: { requestId: 'r', actorUserId: 'u2', schemaVersion: 3 },
    });
    expect(version).toMatchObject({ kind: 'putVersion', version: { version: 2, source_format: null } });
  });

  it('changes nothing for an event the document already reflects (replay)', () => {
    const [, put] = projectPresetEvent(null, stored(created, 0n));
    const current = (put as { record: PresetRecord }).record;
    expect(projectPresetEvent(current, stored(created, 0n))).toEqual([]);
    const later = { ...current, revision: 5n };
    expect(projectPresetEvent(later, stored(added, 1n))).toEqual([]);
  });

  it('refuses a version for a preset it does not hold, rather than inventing one', () => {
    expect(() => projectPresetEvent(null, stored(added, 1n))).toThrow(ProjectionGap);
  });
});

describe('the lifecycle in the preset document', () => {
  const [, put] = projectPresetEvent(null, stored(created, 0n));
  const start = (put as { record: PresetRecord }).record;
  const apply = (events: PresetEvent[], from: PresetRecord = start) =>
    events.reduce((current, event) => {
      const changes = projectPresetEvent(current, stored(event, current.revision + 1n));
      expect(changes).toHaveLength(1); // the document only: no version is written
      return (changes[0] as { record: PresetRecord }).record;
    }, from);
  const t = (day: number) => `2026-02-0${day}T00:00:00.000Z`;

  it('shows the name, description, status with its time, and labels, each moving updated_at', () => {
    const record = apply([
      { type: 'PresetDetailsChanged', data: { presetId: 'p1', name: 'Support bot', description: 'Answers.', occurredAt: t(1) } },
      {
        type: 'PresetLabelMoved',
        data: { presetId: 'p1', label: 'production', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: t(2) },
      },
      {
        type: 'PresetLabelMoved',
        data: { presetId: 'p1', label: 'staging', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: t(3) },
      },
      { type: 'PresetLabelRemoved', data: { presetId: 'p1', label: 'production', versionNumber: 1, occurredAt: t(4) } },
      { type: 'PresetStatusChanged', data: { presetId: 'p1', status: 'disabled', previousStatus: 'active', occurredAt: t(5) } },
    ]);
    expect(record.revision).toBe(5n);
    expect(record.view).toMatchObject({
      name: 'Support bot',
      description: 'Answers.',
      labels: { staging: 1 },
      status: 'disabled',
      status_updated_at: t(5),
      updated_at: t(5),
      created_at: '2026-01-01T00:00:00.000Z',
      designated_version_id: 'v1',
    });
    const cleared = apply([{ type: 'PresetDetailsChanged', data: { presetId: 'p1', description: null, occurredAt: t(6) } }], record);
    expect(cleared.view).toMatchObject({ name: 'Support bot', description: null, status_updated_at: t(5), updated_at: t(6) });
  });

  it('lists a proposed removal, protection change or status change with what it would do, and drops it once applied', () => {
    const proposal = (
      proposalId: string,
      label: string | null,
      change: Extract<PresetEvent, { type: 'PresetChangeProposed' }>['data']['change'],
    ) =>
      ({
        type: 'PresetChangeProposed',
        data: { presetId: 'p1', proposalId, label, change, proposerUserId: 'ann', approvalsRequired: 2, occurredAt: t(2) },
      }) satisfies PresetEvent;
    const record = apply([
      {
        type: 'PresetLabelMoved',
        data: { presetId: 'p1', label: 'production', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: t(1) },
      },
      proposal('00000000-0000-4000-8000-000000000001', 'production', { kind: 'remove_label', versionNumber: 1 }),
      proposal('00000000-0000-4000-8000-000000000002', 'production', {
        kind: 'protect',
        protected: true,
        approvals: 1,
        previousApprovals: 2,
      }),
      proposal('00000000-0000-4000-8000-000000000003', null, { kind: 'status', status: 'disabled', previousStatus: 'active' }),
    ]);
    const common = { proposer_user_id: 'ann', approvals_required: 2, approved_by: [], created_at: t(2), version: null };
    expect(record.view.proposals).toEqual([
      { ...common, id: '00000000-0000-4000-8000-000000000001', label: 'production', change: 'remove_label', previous_version: 1 },
      {
        ...common,
        id: '00000000-0000-4000-8000-000000000002',
        label: 'production',
        change: 'protect',
        previous_version: 1,
        protection: { approvals: 1 },
      },
      {
        ...common,
        id: '00000000-0000-4000-8000-000000000003',
        label: null,
        change: 'status',
        previous_version: null,
        new_status: 'disabled',
      },
    ]);
    const applied = apply(
      [
        {
          type: 'PresetStatusChanged',
          data: {
            presetId: 'p1',
            status: 'disabled',
            previousStatus: 'active',
            occurredAt: t(3),
            proposalId: '00000000-0000-4000-8000-000000000003',
          },
        },
        {
          type: 'PresetLabelRemoved',
          data: {
            presetId: 'p1',
            label: 'production',
            versionNumber: 1,
            occurredAt: t(4),
            proposalId: '00000000-0000-4000-8000-000000000001',
          },
        },
      ],
      record,
    );
    expect(applied.view.proposals!.map((p) => p.id)).toEqual(['00000000-0000-4000-8000-000000000002']);
    expect(applied.view).toMatchObject({ status: 'disabled', labels: {} });
  });

  it('shows a version’s note on the version, null when none was given', () => {
    const noted: PresetEvent = { ...added, data: { ...added.data, version: { ...added.data.version, note: 'cheaper' } } } as PresetEvent;
    const [version, preset] = projectPresetEvent(start, stored(noted, 1n));
    expect((version as { version: { note: string } }).version.note).toBe('cheaper');
    expect((preset as { record: PresetRecord }).record.view.designated_version.note).toBe('cheaper');
    expect(start.view.designated_version.note).toBeNull();
  });

  it('adds labels to a document projected before labels existed', () => {
    const { labels: _none, ...old } = start.view;
    const record = apply(
      [
        {
          type: 'PresetLabelMoved',
          data: { presetId: 'p1', label: 'production', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: t(1) },
        },
      ],
      { ...start, view: old as PresetView },
    );
    expect(record.view.labels).toEqual({ production: 1 });
  });

  it('shows a split label as {"split": [{version, weight}]} in ascending version order, and a plain label again once moved', () => {
    const withV2 = (projectPresetEvent(start, stored(added, 1n))[1] as { record: PresetRecord }).record;
    const share = (n: number, weight: number) => ({ versionNumber: n, versionId: `v${n}`, weight });
    const split = apply(
      [
        {
          type: 'PresetLabelMoved',
          data: { presetId: 'p1', label: 'production', versionNumber: 1, versionId: 'v1', previousVersionNumber: null, occurredAt: t(1) },
        },
        {
          type: 'PresetLabelSplit',
          data: {
            presetId: 'p1',
            label: 'production',
            versions: [share(1, 95), share(2, 5)],
            previousVersionNumber: 1,
            previousVersions: null,
            occurredAt: t(2),
          },
        },
      ],
      withV2,
    );
    expect(split.view.labels).toEqual({
      production: {
        split: [
          { version: 1, weight: 95 },
          { version: 2, weight: 5 },
        ],
      },
    });
    expect(split.view.updated_at).toBe(t(2));
    const promoted = apply(
      [
        {
          type: 'PresetLabelMoved',
          data: {
            presetId: 'p1',
            label: 'production',
            versionNumber: 2,
            versionId: 'v2',
            previousVersionNumber: null,
            previousVersions: [share(1, 95), share(2, 5)],
            occurredAt: t(3),
          },
        },
      ],
      split,
    );
    expect(promoted.view.labels).toEqual({ production: 2 });
  });

  it('refuses a lifecycle event for a preset it does not hold', () => {
    expect(() =>
      projectPresetEvent(
        null,
        stored(
          { type: 'PresetStatusChanged', data: { presetId: 'p1', status: 'archived', previousStatus: 'active', occurredAt: t(1) } },
          1n,
        ),
      ),
    ).toThrow(ProjectionGap);
  });
});

describe('the serialized documents', () => {
  // What reads answer and what the read model stores: the text must be JSON.stringify's, byte for
  // byte, however the projection made the document (the config inside is serialized only once).
  const text = fc.string({ unit: 'binary' });
  it('are the text JSON.stringify makes of them, for any config, prompt and names', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.dictionary(fc.string(), fc.jsonValue()),
        text,
        text,
        text,
        (config1, config2, prompt, name, creator) => {
          const first: PresetEvent = {
            ...created,
            data: {
              ...created.data,
              name,
              creatorUserId: creator,
              version: { ...created.data.version, config: config1, systemPrompt: prompt },
            },
          };
          const second: PresetEvent = {
            ...added,
            data: { ...added.data, version: { ...added.data.version, config: config2, creatorId: creator } },
          };
          const [version1, put1] = projectPresetEvent(null, stored(first, 0n));
          const record1 = (put1 as { record: PresetRecord }).record;
          const [version2, put2] = projectPresetEvent(record1, stored(second, 1n));
          const record2 = (put2 as { record: PresetRecord }).record;
          for (const change of [version1, version2]) {
            const { version } = change as { version: PresetRecord['view']['designated_version'] };
            expect(versionViewJson(version)).toBe(JSON.stringify(version));
          }
          for (const { view } of [record1, record2]) expect(presetViewJson(view)).toBe(JSON.stringify(view));
        },
      ),
    );
  });

  it('keep the key order of a document whose designated version is not its last key', () => {
    const [, put] = projectPresetEvent(null, stored(created, 0n));
    const { designated_version, ...rest } = (put as { record: PresetRecord }).record.view;
    const reordered: PresetView = { designated_version, ...rest };
    expect(presetViewJson(reordered)).toBe(JSON.stringify(reordered));
    expect(Object.keys(JSON.parse(presetViewJson(reordered)))[0]).toBe('designated_version');
  });
});
