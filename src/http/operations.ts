import type * as t from 'io-ts';
import type { JsonSchema } from '../jsonSchema';
import type { Scope } from '../auth/keysFile';
import { PresetView, VersionView } from '../../projections/readmodel/readModel';
import { ErrorEnvelope } from './errors';
import { FEED_POSITION_HEADER } from './routes/reads';
import { PendingWrite, PresetAnswer } from './schemas';

/**
 * What a route file describes its operations with, for the OpenAPI document (assembled in
 * ./openapi.ts). Each resource keeps its operations beside its routes, in
 * `routes/<resource>.openapi.ts`: an `Operation[]`, and the schemas (`[name, codec]`) and
 * parameters only it uses. What several resources use is here.
 */

export type Status =
  '200' | '201' | '202' | '204' | '304' | '400' | '401' | '403' | '404' | '409' | '412' | '413' | '415' | '429' | '500' | '503';
export type Header =
  'X-Request-Id' | 'ETag' | 'Location' | 'Retry-After' | 'WWW-Authenticate' | 'Cache-Control' | typeof FEED_POSITION_HEADER;

export interface Answer {
  description: string;
  /** Media type → a schema name of the document's schemas, or an inline schema. */
  content?: Record<string, string | JsonSchema>;
  headers?: Header[];
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path as OpenAPI writes it: `/api/v1/presets/{slug}`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: 'Presets' | 'Events' | 'Webhooks' | 'Keys' | 'Service';
  /** The scope the bearer key needs; none: no key needed. */
  scope?: Scope;
  /** Names of the document's parameters. */
  parameters?: string[];
  /** A schema name of the document's schemas (a JSON body), or a body of another media type and its schema. */
  requestBody?: string | { type: string; schema: JsonSchema };
  answers: Partial<Record<Status, Answer>>;
  /** Error statuses, answered in the error envelope. */
  errors: Status[];
}

/** Schemas of the document, each by name with the codec it is generated from. */
export type Schemas = ReadonlyArray<[string, t.Any]>;
/** Parameters of the document, by the name operations give them. */
export type Parameters = Record<string, JsonSchema>;

export const json = (schema: string | JsonSchema) => ({ 'application/json': schema });

/** The answers of a write to a preset. */
export const written = (what: string): Partial<Record<Status, Answer>> => ({
  '200': {
    description: `${what}: the preset as this write left it, read from the read model.`,
    content: json('PresetAnswer'),
    headers: ['ETag', 'Location'],
  },
  '202': {
    description: 'The write happened, but the read model has not shown it within READ_YOUR_WRITES_TIMEOUT_MS: poll Location.',
    content: json('PendingWrite'),
    headers: ['Location'],
  },
});

/** A move of a protected target with approvals answers 202 with the proposal it became (docs/keys-and-release.md). */
export const movedOrProposed = (what: string): Partial<Record<Status, Answer>> => ({
  ...written(what),
  '202': {
    description:
      'The write happened but the read model has not shown it yet (poll Location); or the move became a proposal (protected, with approvals).',
    content: json({ anyOf: [{ $ref: '#/components/schemas/PendingWrite' }, { $ref: '#/components/schemas/ProposalAnswer' }] }),
    headers: ['Location'],
  },
});

/** A GET whose answer carries an ETag: If-None-Match naming it (or *) gets a 304. */
export const notModified: Partial<Record<Status, Answer>> = {
  '304': { description: 'Not modified: If-None-Match names the current ETag (or is *).', headers: ['ETag'] },
};

export const API_ERRORS: Status[] = ['400', '401', '403', '429', '500'];
export const WRITE_ERRORS: Status[] = ['400', '401', '403', '409', '412', '413', '415', '429', '500', '503'];

export const SLUG_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$';
export const VERSION_PATTERN = '^[1-9]\\d{0,8}$';

/** The schemas answers of several resources name. */
export const SHARED_SCHEMAS: Schemas = [
  ['Preset', PresetView],
  ['PresetVersion', VersionView],
  ['PresetAnswer', PresetAnswer],
  ['PendingWrite', PendingWrite],
  ['Error', ErrorEnvelope],
];

/** The parameters of several resources. */
export const SHARED_PARAMETERS: Parameters = {
  slug: {
    name: 'slug',
    in: 'path',
    required: true,
    description: 'The preset: 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit; case-sensitive, per workspace.',
    schema: { type: 'string', pattern: SLUG_PATTERN },
  },
  'Preset-Note': {
    name: 'Preset-Note',
    in: 'header',
    description: 'Why, in your words: percent-encoded UTF-8, at most 1,000 characters once decoded; stored on the event.',
    schema: { type: 'string' },
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    description: 'An ETag of the preset ("<revision>"), or *: change it only if it is still at that revision (else 412).',
    schema: { type: 'string' },
  },
  /** On every operation that needs a key (the assembler adds it: ./openapi.ts). */
  workspace_id: {
    name: 'workspace_id',
    in: 'query',
    description:
      'The workspace to act in, one the key holds (a 403 otherwise); writes may give it as a `workspace_id` field of the JSON body instead. ' +
      "Default: the key's first workspace.",
    schema: { type: 'string', format: 'uuid' },
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    description: 'ETags (comma-separated) or *: a 304 without a body when one names the current ETag (weak comparison, RFC 9110).',
    schema: { type: 'string' },
  },
};

export const HEADERS: Record<Header, JsonSchema> = {
  'X-Request-Id': {
    description: "The request's id (the client's, when it sent a sane one): it names the request in the log.",
    required: true,
    schema: { type: 'string' },
  },
  ETag: {
    description:
      "A strong ETag: the preset's stream revision, `\"<revision>\"` (a preset, its versions list, a write's answer); a version's id (a version); " +
      'a digest of the document (/api/v1/openapi.json).',
    required: true,
    schema: { type: 'string' },
  },
  [FEED_POSITION_HEADER]: {
    description:
      'The feed position (of /api/v1/events) up to which this answer reflects every event, when the read model has one: follow the feed after it ' +
      '(Last-Event-ID) to keep what was listed current.',
    required: false,
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  Location: { description: 'The preset (200), or what to poll (202).', required: true, schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
  'WWW-Authenticate': { description: 'The bearer challenge.', required: true, schema: { type: 'string' } },
  'Cache-Control': { description: 'How long the answer may be cached.', required: true, schema: { type: 'string' } },
};

/** What each error status means, whichever operation answers it (in the error envelope). */
export const ERRORS: Record<Exclude<Status, '200' | '201' | '202' | '204' | '304'>, Answer> = {
  '400': { description: 'Not a valid request: metadata.errors lists each problem with its JSON path (`$.messages[0].role`) or parameter.' },
  '401': { description: 'Missing, malformed or unknown API key.', headers: ['WWW-Authenticate'] },
  '403': {
    description:
      'The key lacks the scope (metadata.required_scope), or does not hold the workspace (metadata.reason "workspace_not_held"), or the change ' +
      'touches a protected label or designation (metadata.reason "protected"), or the user may not decide on the proposal ("not_allowed").',
  },
  '404': { description: 'No such preset, version, label, webhook or route in this workspace.' },
  '409': {
    description:
      'Lost a race with a concurrent write: retry; or the preset is archived (metadata.reason "preset_archived"), or a webhook limit; ' +
      'a split label removed ("label_split"), a label protected with approvals split ("label_protected_split"), a proposal closed, stale or ' +
      'approved twice ("proposal_closed", "proposal_stale", "already_approved"), a disabled preset deleted or restored ("preset_disabled"); ' +
      'resolving: the preset is disabled or archived (metadata.reason "preset_disabled", "preset_archived"), or the version\'s stored template ' +
      'cannot be rendered ("template_invalid").',
  },
  '412': { description: 'If-Match names a revision the preset is no longer at: read it again.' },
  '413': { description: 'The body is larger than BODY_LIMIT_BYTES.' },
  '415': { description: 'The body is not application/json in UTF-8.' },
  '429': { description: "Past the key's RATE_LIMIT_PER_MINUTE (when rate limiting is on).", headers: ['Retry-After'] },
  '500': { description: 'A fault of the service (logged under the request id; no detail here).' },
  '503': { description: 'Storage cannot take writes (nothing was stored), or the service is shutting down.', headers: ['Retry-After'] },
};
