import * as t from 'io-ts';
import { toJsonSchema, type JsonSchema } from '../../jsonSchema';
import { REPORT_COLUMNS } from '../../audit/report';
import { StreamHead } from '../../audit/events';
import type { Operation } from '../operations';

/** The audit API's operations and parameters in the OpenAPI document (openapi.ts spreads them in). */
const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);

const Fault = t.type({
  kind: t.keyof({
    hash_mismatch: null,
    missing_event: null,
    unsealed: null,
    checkpoint_digest: null,
    checkpoint_head_missing: null,
    checkpoint_head_mismatch: null,
  }),
  stream: t.string,
  revision: t.number,
  message: t.string,
});
const VerifyAnswer = t.type({
  data: t.intersection([
    t.type({ ok: t.boolean, events: t.number, streams: t.number, checkpoints: t.number, through: nullable(t.string) }),
    t.partial({ fault: t.intersection([Fault, t.partial({ position: t.string })]) }),
  ]),
});
const Checkpoint = t.type({
  stream: t.string,
  revision: t.number,
  position: t.string,
  hash: nullable(t.string),
  after: t.string,
  through: t.string,
  digest: t.string,
  heads: t.array(StreamHead),
  recorded_at: t.string,
});
const CheckpointAnswer = t.type({ data: nullable(Checkpoint) });
const PublicKeyAnswer = t.type({ data: t.type({ algorithm: t.literal('Ed25519'), key_id: t.string, public_key_pem: t.string }) });
const ReportRow = t.type({
  time: t.string,
  actor: t.string,
  key_id: nullable(t.string),
  preset: t.string,
  event: t.string,
  from: nullable(t.string),
  to: nullable(t.string),
  revision: t.number,
  position: t.string,
});
const ReportAnswer = t.type({ data: t.array(ReportRow) });

const json = (codec: t.Any): Record<string, JsonSchema> => ({ 'application/json': toJsonSchema(codec) });
const ERRORS = ['400', '401', '403', '429', '500', '503'] as Operation['errors'];

export const AUDIT_PARAMETERS: Record<string, JsonSchema> = {
  as_of: {
    name: 'as_of',
    in: 'query',
    description:
      'An RFC 3339 date-time with an offset (`2026-11-03T14:05:00Z`): the preset as it stood then, folded from its events (labels and versions ' +
      'included); 404 when it did not exist yet.',
    schema: { type: 'string', format: 'date-time' },
  },
  auditFrom: {
    name: 'from',
    in: 'query',
    description: 'Events recorded at or after this RFC 3339 date-time.',
    schema: { type: 'string', format: 'date-time' },
  },
  auditTo: {
    name: 'to',
    in: 'query',
    description: 'Events recorded before this RFC 3339 date-time.',
    schema: { type: 'string', format: 'date-time' },
  },
  auditStream: {
    name: 'stream',
    in: 'query',
    description: "Only this preset's events (its slug).",
    schema: { type: 'string' },
  },
  reportFormat: {
    name: 'format',
    in: 'query',
    description: '`json` (default) or `csv`.',
    schema: { type: 'string', enum: ['json', 'csv'], default: 'json' },
  },
};

export const AUDIT_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/audit/verify',
    operationId: 'verifyAuditLog',
    tag: 'Events',
    scope: 'audit:read',
    summary: "Verify the workspace's hash chains and checkpoints",
    description:
      'Recomputes the hash chain of every stream of the workspace and checks every checkpoint of its audit stream; names the first event that ' +
      'does not match (`fault`: kind, stream, revision). docs/audit.md.',
    answers: { '200': { description: 'What was verified, and the first fault if any.', content: json(VerifyAnswer) } },
    errors: ERRORS,
  },
  {
    method: 'post',
    path: '/api/v1/audit/checkpoints',
    operationId: 'recordAuditCheckpoint',
    tag: 'Events',
    scope: 'audit:read',
    summary: 'Record a checkpoint now',
    description:
      'Records a LogCheckpointed event on the workspace audit stream with the head of every stream changed since the last checkpoint (201); ' +
      'when nothing changed, answers the last checkpoint (200; null when there is none).',
    answers: {
      '200': { description: 'Nothing changed: the last checkpoint.', content: json(CheckpointAnswer) },
      '201': { description: 'The checkpoint recorded.', content: json(CheckpointAnswer) },
    },
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/audit/public-key',
    operationId: 'getAuditPublicKey',
    tag: 'Events',
    scope: 'audit:read',
    summary: 'The public key that checks exports',
    description: "The service's Ed25519 public key (PEM, SPKI) and its id: `npx presets-audit verify --public-key` takes the PEM.",
    answers: { '200': { description: 'The key.', content: json(PublicKeyAnswer) } },
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/audit/export',
    operationId: 'exportAuditLog',
    tag: 'Events',
    scope: 'audit:read',
    summary: 'A signed NDJSON export of the events',
    description:
      'The events recorded in the range (or of one preset), one JSON line each with its chain hash and the hash it chains from, then a closing ' +
      'line with the range, the count, the last checkpoint, the SHA-256 of the lines and an Ed25519 signature. Streamed. docs/audit.md.',
    parameters: ['auditFrom', 'auditTo', 'auditStream'],
    answers: { '200': { description: 'NDJSON.', content: { 'application/x-ndjson': { type: 'string' } }, headers: ['Cache-Control'] } },
    errors: ERRORS,
  },
  {
    method: 'get',
    path: '/api/v1/audit/report',
    operationId: 'getAuditReport',
    tag: 'Events',
    scope: 'audit:read',
    summary: 'Who did what to which preset',
    description: `One row per preset event recorded in the range: ${REPORT_COLUMNS.join(', ')}. JSON, or CSV with \`format=csv\`.`,
    parameters: ['auditFrom', 'auditTo', 'reportFormat'],
    answers: {
      '200': {
        description: 'The rows, oldest first.',
        content: { ...json(ReportAnswer), 'text/csv': { type: 'string' } },
        headers: ['Cache-Control'],
      },
    },
    errors: ERRORS,
  },
];
