import { keysStreamName } from '#src/keys/streamName';
import { presetStreamName } from '#src/presets/streamName';
import type { MemoryReadModel } from '#projections/readmodel/memory';
import { ProjectionSpecification, type SpecEvent } from '#support/projectionSpecification';

/**
 * The preset projection, event type by event type, as given/when/then specifications: each one also
 * holds that the events projected twice, and in one batch, leave the same read model.
 */
const WS = '00000000-0000-4000-8000-000000000001';
const stream = presetStreamName(WS, 'bot');
const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`;
const version = (n: number, config: Record<string, unknown> = { model: `m/${n}` }) => ({
  id: `v${n}`,
  number: n,
  config,
  systemPrompt: `prompt ${n}`,
  templateFormat: 'none',
  variables: null,
  messages: [],
  creatorId: 'user-1',
});
const created: SpecEvent = {
  stream,
  type: 'PresetCreated',
  data: { presetId: 'p1', workspaceId: WS, slug: 'bot', name: 'bot', creatorUserId: 'user-1', version: version(1), occurredAt: at(1) },
  metadata: { sourceFormat: 'chat_completions' },
};
const added = (n: number, extra: Record<string, unknown> = {}): SpecEvent => ({
  stream,
  type: 'PresetVersionAdded',
  data: { presetId: 'p1', version: version(n), occurredAt: at(n), ...extra },
  metadata: { sourceFormat: 'messages' },
});
const given = ProjectionSpecification.for().given;
const document = async (readModel: MemoryReadModel) => (await readModel.getPreset(WS, 'bot'))!.view;

describe('the preset projection, specified', () => {
  it('PresetCreated: the document with version 1 designated, and the version', () =>
    given([])
      .when([created])
      .then(async (readModel) => {
        expect(await document(readModel)).toMatchObject({
          id: 'p1',
          slug: 'bot',
          status: 'active',
          labels: {},
          designated_version: { version: 1, config: { model: 'm/1' }, source_format: 'chat_completions' },
        });
        expect(await readModel.getVersion('p1', 1)).toMatchObject({ system_prompt: 'prompt 1' });
      }));

  it('PresetVersionAdded: the new version, designated unless the designation is protected (designated: false)', async () => {
    await given([created])
      .when([added(2)])
      .then(async (readModel) => expect((await document(readModel)).designated_version.version).toBe(2));
    await given([created])
      .when([added(2, { designated: false })])
      .then(async (readModel) => {
        expect((await document(readModel)).designated_version.version).toBe(1);
        expect(await readModel.getVersion('p1', 2)).toMatchObject({ version: 2, source_format: 'messages' });
      });
  });

  it('PresetVersionDesignated: back to an older version, its config and prompt with it', () =>
    given([created, added(2)])
      .when([
        {
          stream,
          type: 'PresetVersionDesignated',
          data: { presetId: 'p1', versionId: 'v1', versionNumber: 1, previousVersionNumber: 2, occurredAt: at(3) },
        },
      ])
      .then(async (readModel) =>
        expect((await document(readModel)).designated_version).toMatchObject({ version: 1, system_prompt: 'prompt 1' }),
      ));

  it('PresetDetailsChanged and PresetStatusChanged: name, description, status and when', () =>
    given([created])
      .when([
        { stream, type: 'PresetDetailsChanged', data: { presetId: 'p1', name: 'Bot', description: 'Answers.', occurredAt: at(2) } },
        { stream, type: 'PresetStatusChanged', data: { presetId: 'p1', status: 'disabled', previousStatus: 'active', occurredAt: at(3) } },
      ])
      .then(async (readModel) =>
        expect(await document(readModel)).toMatchObject({
          name: 'Bot',
          description: 'Answers.',
          status: 'disabled',
          status_updated_at: at(3),
          updated_at: at(3),
        }),
      ));

  it('labels: moved, split between versions, moved back to one, removed', async () => {
    const moved = (label: string, n: number, previous: number | null): SpecEvent => ({
      stream,
      type: 'PresetLabelMoved',
      data: { presetId: 'p1', label, versionNumber: n, versionId: `v${n}`, previousVersionNumber: previous, occurredAt: at(4) },
    });
    const split: SpecEvent = {
      stream,
      type: 'PresetLabelSplit',
      data: {
        presetId: 'p1',
        label: 'production',
        versions: [
          { versionNumber: 1, versionId: 'v1', weight: 90 },
          { versionNumber: 2, versionId: 'v2', weight: 10 },
        ],
        previousVersionNumber: 1,
        previousVersions: null,
        occurredAt: at(5),
      },
    };
    await given([created, added(2)])
      .when([moved('production', 1, null), moved('staging', 2, null), split])
      .then(async (readModel) =>
        expect((await document(readModel)).labels).toEqual({
          production: {
            split: [
              { version: 1, weight: 90 },
              { version: 2, weight: 10 },
            ],
          },
          staging: 2,
        }),
      );
    await given([created, added(2), moved('production', 1, null)])
      .when([{ stream, type: 'PresetLabelRemoved', data: { presetId: 'p1', label: 'production', versionNumber: 1, occurredAt: at(6) } }])
      .then(async (readModel) => expect((await document(readModel)).labels).toEqual({}));
  });

  it('release control: a protection, then a proposal open until approved, applied by the label move', async () => {
    const protectedLabel: SpecEvent = {
      stream,
      type: 'PresetLabelProtected',
      data: { presetId: 'p1', label: 'production', protected: true, approvals: 1, occurredAt: at(4) },
    };
    const proposed: SpecEvent = {
      stream,
      type: 'LabelMoveProposed',
      data: {
        presetId: 'p1',
        proposalId: 'q1',
        label: 'production',
        versionNumber: 2,
        versionId: 'v2',
        previousVersionNumber: null,
        proposerUserId: 'user-ann',
        approvalsRequired: 1,
        occurredAt: at(5),
      },
    };
    await given([created, added(2)])
      .when([protectedLabel, proposed])
      .then(async (readModel) =>
        expect(await document(readModel)).toMatchObject({
          protected_labels: { production: { approvals: 1 } },
          proposals: [{ id: 'q1', label: 'production', version: 2, proposer_user_id: 'user-ann', approved_by: [] }],
        }),
      );
    await given([created, added(2), protectedLabel, proposed])
      .when([
        { stream, type: 'LabelMoveApproved', data: { presetId: 'p1', proposalId: 'q1', approverUserId: 'user-bob', occurredAt: at(6) } },
        {
          stream,
          type: 'PresetLabelMoved',
          data: {
            presetId: 'p1',
            label: 'production',
            versionNumber: 2,
            versionId: 'v2',
            previousVersionNumber: null,
            proposalId: 'q1',
            occurredAt: at(6),
          },
        },
      ])
      .then(async (readModel) => {
        const view = await document(readModel);
        expect(view.labels).toEqual({ production: 2 });
        expect(view.proposals ?? []).toEqual([]);
      });
  });

  it('an event of a workspace’s keys stream moves the checkpoint and makes no document', () =>
    given([created])
      .when([
        {
          stream: keysStreamName(WS),
          type: 'ApiKeyRevoked',
          data: { keyId: 'k1', occurredAt: at(2) },
        },
      ])
      .then(async (readModel) => {
        expect(await readModel.checkpoint('specification')).toBe(2n);
        expect((await readModel.listPresets(WS, { offset: 0, limit: 10 })).total).toBe(1);
      }));

  it('an event of a preset it does not hold is refused (a gap), not guessed', () =>
    given([])
      .when([added(2)])
      .thenFails(/does not hold/));
});
