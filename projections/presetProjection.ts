import type { SourceFormat, StoredPresetEvent, VersionData } from '../src/presets/events';
import type { PresetRecord, PresetView, ProjectionChange, ProposalView, VersionView } from './readmodel/readModel';

/**
 * The read side of a preset, as a pure function: given the document as the read model holds it
 * and the next event of its stream, the changes to write. Knows nothing about storage.
 */
export class ProjectionGap extends Error {
  override readonly name = 'ProjectionGap';
}

const versionView = (presetId: string, version: VersionData, occurredAt: string, sourceFormat: SourceFormat | undefined): VersionView => ({
  id: version.id,
  preset_id: presetId,
  version: version.number,
  config: version.config,
  system_prompt: version.systemPrompt,
  template_format: version.templateFormat,
  variables: version.variables,
  messages: version.messages,
  note: version.note ?? null,
  source_format: sourceFormat ?? null,
  creator_id: version.creatorId,
  created_at: occurredAt,
  updated_at: occurredAt,
});

/** The version a PresetVersionDesignated event points at: the caller looks it up before projecting. */
export const versionToLookUp = (stored: StoredPresetEvent): { presetId: string; version: number } | null =>
  stored.event.type === 'PresetVersionDesignated'
    ? { presetId: stored.event.data.presetId, version: stored.event.data.versionNumber }
    : null;

export const projectPresetEvent = (
  current: PresetRecord | null,
  stored: StoredPresetEvent,
  designated?: VersionView | null,
): ProjectionChange[] => {
  // Already reflected: replay after a crash, or a second projector. Nothing to do.
  if (current && current.revision >= stored.revision) return [];
  const { event } = stored;
  const at = (view: PresetView): ProjectionChange => ({ kind: 'putPreset', record: { revision: stored.revision, view } });
  if (event.type === 'PresetCreated') {
    const d = event.data;
    const version = versionView(d.presetId, d.version, d.occurredAt, stored.metadata.sourceFormat);
    return [
      { kind: 'putVersion', version },
      at({
        id: d.presetId,
        name: d.name,
        slug: d.slug,
        description: null,
        status: 'active',
        status_updated_at: null,
        created_at: d.occurredAt,
        updated_at: d.occurredAt,
        creator_user_id: d.creatorUserId,
        workspace_id: d.workspaceId,
        labels: {},
        designated_version_id: version.id,
        designated_version: version,
      }),
    ];
  }
  if (!current) throw new ProjectionGap(`${stored.stream}@${stored.revision}: ${event.type} of a preset the read model does not hold`);
  const view = current.view;
  // Documents projected before labels existed have none.
  const labels = view.labels ?? {};
  /** The document with one more open proposal. */
  const proposed = (
    d: { proposalId: string; label: string | null; proposerUserId: string; approvalsRequired: number; occurredAt: string },
    details: Partial<ProposalView>,
  ): ProjectionChange => {
    const proposal: ProposalView = {
      id: d.proposalId,
      label: d.label,
      version: null,
      previous_version: null,
      proposer_user_id: d.proposerUserId,
      approvals_required: d.approvalsRequired,
      approved_by: [],
      created_at: d.occurredAt,
      ...details,
    };
    return at({ ...view, proposals: [...(view.proposals ?? []), proposal], updated_at: d.occurredAt });
  };
  switch (event.type) {
    case 'PresetVersionAdded': {
      const d = event.data;
      const version = versionView(d.presetId, d.version, d.occurredAt, stored.metadata.sourceFormat);
      // A protected designation stays where it is (`designated: false`).
      const designation = d.designated === false ? {} : { designated_version_id: version.id, designated_version: version };
      return [{ kind: 'putVersion', version }, at({ ...view, updated_at: d.occurredAt, ...designation })];
    }
    case 'PresetVersionDesignated': {
      const d = event.data;
      if (!designated || designated.id !== d.versionId) {
        throw new ProjectionGap(`${stored.stream}@${stored.revision}: designated version ${d.versionNumber} is not in the read model`);
      }
      return [
        at({
          ...closed(view, d.proposalId),
          updated_at: d.occurredAt,
          designated_version_id: designated.id,
          designated_version: designated,
        }),
      ];
    }
    case 'PresetDetailsChanged': {
      const { name, description, occurredAt } = event.data;
      return [
        at({
          ...view,
          ...(name !== undefined ? { name } : {}),
          ...(description !== undefined ? { description } : {}),
          updated_at: occurredAt,
        }),
      ];
    }
    case 'PresetStatusChanged':
      return [
        at({
          ...closed(view, event.data.proposalId),
          status: event.data.status,
          status_updated_at: event.data.occurredAt,
          updated_at: event.data.occurredAt,
        }),
      ];
    case 'PresetLabelMoved':
      return [
        at({
          ...closed(view, event.data.proposalId),
          labels: { ...labels, [event.data.label]: event.data.versionNumber },
          updated_at: event.data.occurredAt,
        }),
      ];
    case 'PresetLabelRemoved': {
      const { [event.data.label]: _removed, ...rest } = labels;
      return [at({ ...closed(view, event.data.proposalId), labels: rest, updated_at: event.data.occurredAt })];
    }
    case 'PresetLabelSplit': {
      const split = event.data.versions.map((share) => ({ version: share.versionNumber, weight: share.weight }));
      return [at({ ...view, labels: { ...labels, [event.data.label]: { split } }, updated_at: event.data.occurredAt })];
    }
    case 'PresetLabelProtected': {
      const d = event.data;
      const protection = d.protected ? { approvals: d.approvals } : null;
      const base = closed(view, d.proposalId);
      if (d.label === null) return [at({ ...base, designation_protection: protection, updated_at: d.occurredAt })];
      const { [d.label]: _was, ...others } = view.protected_labels ?? {};
      return [at({ ...base, protected_labels: protection ? { ...others, [d.label]: protection } : others, updated_at: d.occurredAt })];
    }
    case 'LabelMoveProposed': {
      const d = event.data;
      return [proposed(d, { change: 'move', version: d.versionNumber, previous_version: d.previousVersionNumber })];
    }
    case 'PresetChangeProposed': {
      const d = event.data;
      const c = d.change;
      const current = d.label === null ? (view.designated_version?.version ?? null) : labelNow(labels, d.label);
      const details: Partial<ProposalView> =
        c.kind === 'remove_label'
          ? { change: c.kind, previous_version: c.versionNumber }
          : c.kind === 'protect'
            ? { change: c.kind, previous_version: current, protection: c.protected ? { approvals: c.approvals } : null }
            : { change: c.kind, previous_version: null, new_status: c.status };
      return [proposed(d, details)];
    }
    case 'LabelMoveApproved': {
      const d = event.data;
      const proposals = (view.proposals ?? []).map((p) =>
        p.id === d.proposalId ? { ...p, approved_by: [...p.approved_by, d.approverUserId] } : p,
      );
      return [at({ ...view, proposals, updated_at: d.occurredAt })];
    }
    case 'LabelMoveRejected':
    case 'LabelMoveWithdrawn':
      return [at({ ...closed(view, event.data.proposalId), updated_at: event.data.occurredAt })];
  }
};

/** The version a label names, when it names one (not when it is split, or absent). */
const labelNow = (labels: PresetView['labels'], label: string): number | null => {
  const named = Object.hasOwn(labels, label) ? labels[label] : undefined;
  return typeof named === 'number' ? named : null;
};

/** The document without the proposal a change applied, rejected or withdrew. */
const closed = (view: PresetView, proposalId: string | undefined): PresetView =>
  proposalId === undefined || !view.proposals ? view : { ...view, proposals: view.proposals.filter((p) => p.id !== proposalId) };

/**
 * One stream folded from nothing, in revision order, each designated version looked up among the
 * stream's own versions (the decider only designates those): what a rebuild and a past state need,
 * with no read of the read model.
 */
export const streamFold = () => {
  let current: PresetRecord | null = null;
  const versions = new Map<number, VersionView>();
  return {
    /** Projects the next event of the stream; returns its changes. */
    apply(stored: StoredPresetEvent): ProjectionChange[] {
      const wanted = versionToLookUp(stored);
      const changes = projectPresetEvent(current, stored, wanted ? (versions.get(wanted.version) ?? null) : undefined);
      for (const change of changes) {
        if (change.kind === 'putPreset') current = change.record;
        else versions.set(change.version.version, change.version);
      }
      return changes;
    },
    current: () => current,
    /** The stream's versions so far, by number (as the read model lists them). */
    versions: (): VersionView[] => [...versions.values()].sort((a, b) => a.version - b.version),
  };
};
