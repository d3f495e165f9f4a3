import type { StoredPresetEvent, VersionData } from '../src/presets/events';
import type { PresetRecord, ProjectionChange, VersionView } from './readmodel/readModel';

/**
 * The read side of a preset, as a pure function: given the document as the read model holds it
 * and the next event of its stream, the changes to write. Knows nothing about storage.
 */
export class ProjectionGap extends Error {
  override readonly name = 'ProjectionGap';
}

const versionView = (presetId: string, version: VersionData, occurredAt: string): VersionView => ({
  id: version.id,
  preset_id: presetId,
  version: version.number,
  config: version.config,
  system_prompt: version.systemPrompt,
  creator_id: version.creatorId,
  created_at: occurredAt,
  updated_at: occurredAt,
});

/** The version a PresetVersionDesignated event points at: the caller looks it up before projecting. */
export const versionToLookUp = (stored: StoredPresetEvent): { presetId: string; version: number } | null =>
  stored.event.type === 'PresetVersionDesignated' ? { presetId: stored.event.data.presetId, version: stored.event.data.versionNumber } : null;

export const projectPresetEvent = (current: PresetRecord | null, stored: StoredPresetEvent, designated?: VersionView | null): ProjectionChange[] => {
  // Already reflected: replay after a crash, or a second projector. Nothing to do.
  if (current && current.revision >= stored.revision) return [];
  const { event } = stored;
  switch (event.type) {
    case 'PresetCreated': {
      const d = event.data;
      const version = versionView(d.presetId, d.version, d.occurredAt);
      const record: PresetRecord = {
        revision: stored.revision,
        view: {
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
          designated_version_id: version.id,
          designated_version: version,
        },
      };
      return [{ kind: 'putVersion', version }, { kind: 'putPreset', record }];
    }
    case 'PresetVersionAdded': {
      if (!current) throw new ProjectionGap(`${stored.stream}@${stored.revision}: version added to a preset the read model does not hold`);
      const d = event.data;
      const version = versionView(d.presetId, d.version, d.occurredAt);
      const record: PresetRecord = {
        revision: stored.revision,
        view: { ...current.view, updated_at: d.occurredAt, designated_version_id: version.id, designated_version: version },
      };
      return [{ kind: 'putVersion', version }, { kind: 'putPreset', record }];
    }
    case 'PresetVersionDesignated': {
      const d = event.data;
      if (!current || !designated || designated.id !== d.versionId) {
        throw new ProjectionGap(`${stored.stream}@${stored.revision}: designated version ${d.versionNumber} is not in the read model`);
      }
      const record: PresetRecord = {
        revision: stored.revision,
        view: { ...current.view, updated_at: d.occurredAt, designated_version_id: designated.id, designated_version: designated },
      };
      return [{ kind: 'putPreset', record }];
    }
  }
};
