import * as t from 'io-ts';
import type { RecordedEvent, StreamName } from '../eventstore/eventStore';
import { formatErrors } from '../validation';
import { MalformedEvent } from '../presets/events';

/**
 * The audit stream of a workspace, `audit-<workspace uuid>`: its checkpoints. Apart from the
 * presets' category (`preset-`), so the projector, the feed and webhooks never see it; the audit
 * routes, `audit:verify` and the export read it. Its events are chained like every other stream's.
 */
export const AUDIT_CATEGORY = 'audit';
export const AUDIT_STREAM_PREFIX = `${AUDIT_CATEGORY}-`;
export const auditStreamName = (workspaceId: string): StreamName => `${AUDIT_STREAM_PREFIX}${workspaceId}`;

export const AUDIT_SCHEMA_VERSION = 1;

/** One stream's last event at a checkpoint: its revision and its chain link. */
export const StreamHead = t.type({ stream: t.string, revision: t.number, hash: t.string }, 'StreamHead');
export type StreamHead = t.TypeOf<typeof StreamHead>;

/**
 * `LogCheckpointed`: the head of every stream of the workspace that changed after the previous
 * checkpoint (`after`, a feed position, exclusive) up to `through` (inclusive), sorted by stream
 * name, and `digest` = SHA-256 of their RFC 8785 JSON (audit/checkpoint.ts). A stream whose tail
 * is removed later no longer has the head a checkpoint names: verify reports it.
 */
export const LogCheckpointedData = t.type(
  {
    workspaceId: t.string,
    after: t.string,
    through: t.string,
    heads: t.array(StreamHead),
    digest: t.string,
    occurredAt: t.string,
  },
  'LogCheckpointed',
);
export type LogCheckpointedData = t.TypeOf<typeof LogCheckpointedData>;

export const AuditMetadata = t.intersection(
  [
    t.type({ requestId: t.string, actorUserId: t.string, schemaVersion: t.literal(AUDIT_SCHEMA_VERSION) }),
    t.partial({ keyId: t.string, hash: t.string, hashed: t.literal('as_stored') }),
  ],
  'AuditMetadata',
);
export type AuditMetadata = t.TypeOf<typeof AuditMetadata>;

export const LOG_CHECKPOINTED = 'LogCheckpointed';
export const auditEventDataCodecs = { LogCheckpointed: LogCheckpointedData } as const;

/** The published codecs (`npm run schemas:generate`), by schema version. */
export const auditCodecsBySchemaVersion: Record<number, { metadata: t.Mixed; data: Record<string, t.Mixed> }> = {
  [AUDIT_SCHEMA_VERSION]: { metadata: AuditMetadata, data: auditEventDataCodecs },
};

export interface StoredCheckpoint {
  data: LogCheckpointedData;
  metadata: AuditMetadata;
  stream: string;
  revision: bigint;
  position: bigint;
  recordedAt: Date;
}

/** Validates a checkpoint read from an audit stream; a malformed one is a loud error. */
export const decodeCheckpoint = (recorded: RecordedEvent): StoredCheckpoint => {
  if (recorded.type !== LOG_CHECKPOINTED)
    throw new MalformedEvent(`unknown audit event type ${recorded.type} at ${recorded.stream}@${recorded.revision}`);
  const data = LogCheckpointedData.decode(recorded.data);
  const metadata = AuditMetadata.decode(recorded.metadata);
  if (data._tag === 'Left' || metadata._tag === 'Left') {
    const problems = formatErrors(data._tag === 'Left' ? data.left : (metadata as { left: t.Errors }).left);
    throw new MalformedEvent(
      `event ${recorded.id} (${recorded.type}) does not match its schema: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    );
  }
  return {
    data: data.right,
    metadata: metadata.right,
    stream: recorded.stream,
    revision: recorded.revision,
    position: recorded.position,
    recordedAt: recorded.recordedAt,
  };
};
