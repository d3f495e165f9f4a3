import type { EventFeed } from '../eventstore/eventFeed';
import { decodeWorkspaceEvent as decodeEvent } from '../workspaceLog/catalog';
import { parsePresetStreamName } from '../presets/streamName';
import { workspaceStreamPrefix } from '../events/workspaceStreams';
import { type WorkspaceEvent } from '../workspaceLog/catalog';

/**
 * The compliance report (GET /api/v1/audit/report): one row per preset event of a workspace
 * recorded in a range, saying who (actor and key id) did what (the event) to which preset, and
 * what changed from → to. Yielded row by row from the feed, a page at a time.
 */
export interface ReportRow {
  time: string;
  actor: string;
  key_id: string | null;
  preset: string;
  event: string;
  from: string | null;
  to: string | null;
  revision: number;
  position: string;
}

export const REPORT_COLUMNS = ['time', 'actor', 'key_id', 'preset', 'event', 'from', 'to', 'revision', 'position'] as const;

const version = (n: number | null) => (n === null ? null : `version ${n}`);

/** What the event changed, from → to, in words; null where the event has no before or after. */
export const changeOf = (event: WorkspaceEvent): { from: string | null; to: string | null } => {
  switch (event.type) {
    case 'PresetCreated':
      return { from: null, to: `${version(event.data.version.number)} (designated)` };
    case 'PresetVersionAdded':
      return { from: null, to: `${version(event.data.version.number)} (designated)` };
    case 'PresetVersionDesignated':
      return { from: version(event.data.previousVersionNumber), to: version(event.data.versionNumber) };
    case 'PresetDetailsChanged': {
      const changed = [
        ...(event.data.name !== undefined ? [`name ${JSON.stringify(event.data.name)}`] : []),
        ...(event.data.description !== undefined ? [`description ${JSON.stringify(event.data.description)}`] : []),
      ];
      return { from: null, to: changed.join(', ') || null };
    }
    case 'PresetStatusChanged':
      return { from: event.data.previousStatus, to: event.data.status };
    case 'PresetLabelMoved':
      return {
        from: event.data.previousVersionNumber === null ? null : `${event.data.label} → ${version(event.data.previousVersionNumber)}`,
        to: `${event.data.label} → ${version(event.data.versionNumber)}`,
      };
    case 'PresetLabelRemoved':
      return { from: `${event.data.label} → ${version(event.data.versionNumber)}`, to: null };
    case 'PresetLabelSplit':
      return {
        from: event.data.previousVersions
          ? `${event.data.label} → ${shares(event.data.previousVersions)}`
          : event.data.previousVersionNumber === null
            ? null
            : `${event.data.label} → ${version(event.data.previousVersionNumber)}`,
        to: `${event.data.label} → ${shares(event.data.versions)}`,
      };
    case 'PresetLabelProtected':
      return {
        from: null,
        to: `${target(event.data.label)} ${event.data.protected ? `protected, ${event.data.approvals} approval(s)` : 'unprotected'}`,
      };
    case 'LabelMoveProposed':
      return {
        from:
          event.data.previousVersionNumber === null ? null : `${target(event.data.label)} → ${version(event.data.previousVersionNumber)}`,
        to: `proposed: ${target(event.data.label)} → ${version(event.data.versionNumber)} (proposal ${event.data.proposalId})`,
      };
    case 'PresetChangeProposed': {
      const { label, change, proposalId } = event.data;
      const to =
        change.kind === 'remove_label'
          ? `remove ${label} (on ${version(change.versionNumber)})`
          : change.kind === 'protect'
            ? `${target(label)} ${change.protected ? `protected, ${change.approvals} approval(s)` : 'unprotected'}`
            : `status ${change.status}`;
      const from =
        change.kind === 'protect'
          ? `${target(label)} ${change.previousApprovals === null ? 'unprotected' : `protected, ${change.previousApprovals} approval(s)`}`
          : change.kind === 'status'
            ? `status ${change.previousStatus}`
            : null;
      return { from, to: `proposed: ${to} (proposal ${proposalId})` };
    }
    case 'LabelMoveApproved':
      return { from: null, to: `approved by ${event.data.approverUserId} (proposal ${event.data.proposalId})` };
    case 'LabelMoveRejected':
      return { from: null, to: `rejected (proposal ${event.data.proposalId})` };
    case 'LabelMoveWithdrawn':
      return { from: null, to: `withdrawn (proposal ${event.data.proposalId})` };
    case 'ApiKeyCreated':
      return { from: null, to: `key ${event.data.keyId} for ${event.data.userId}: ${event.data.scopes.join(' ')}` };
    case 'ApiKeyRevoked':
      return { from: `key ${event.data.keyId}`, to: 'revoked' };
  }
};

const shares = (split: ReadonlyArray<{ versionNumber: number; weight: number }>) =>
  split.map((s) => `${version(s.versionNumber)} × ${s.weight}`).join(', ');
const target = (label: string | null) => label ?? 'the designation';

const PAGE = 1000;

export async function* reportRows(
  feed: EventFeed,
  { workspaceId, from, to }: { workspaceId: string; from?: Date; to?: Date },
): AsyncGenerator<ReportRow> {
  const prefix = workspaceStreamPrefix(workspaceId);
  const until = await feed.headPosition({ streamPrefix: prefix });
  for (let after = 0n; until !== null && after < until;) {
    const page = await feed.readAll({ after, limit: PAGE, streamPrefix: prefix });
    for (const recorded of page) {
      if (recorded.position > until) return;
      if ((from && recorded.recordedAt < from) || (to && recorded.recordedAt >= to)) continue;
      const stored = decodeEvent(recorded);
      yield {
        time: recorded.recordedAt.toISOString(),
        actor: stored.metadata.actorUserId,
        key_id: stored.metadata.keyId ?? null,
        preset: parsePresetStreamName(recorded.stream)?.slug ?? recorded.stream,
        event: stored.event.type,
        ...changeOf(stored.event),
        revision: Number(recorded.revision),
        position: recorded.position.toString(),
      };
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.position;
  }
}
