import type * as t from 'io-ts';
import { toJsonSchema } from '../jsonSchema';
import { CONSOLE_OPERATIONS, CONSOLE_PARAMETERS } from './console.openapi';
import {
  ERRORS,
  HEADERS,
  json,
  SHARED_PARAMETERS,
  SHARED_SCHEMAS,
  type Answer,
  type Header,
  type Operation,
  type Schemas,
} from './operations';
import { CONSUMER_GROUP_OPERATIONS, CONSUMER_GROUP_PARAMETERS, CONSUMER_GROUP_SCHEMAS } from './routes/consumerGroups.openapi';
import { DESIGNATE_OPERATIONS, DESIGNATE_SCHEMAS } from './routes/designate.openapi';
import { DOTPROMPT_OPERATIONS, DOTPROMPT_PARAMETERS } from './routes/dotprompt.openapi';
import { DOCS_OPERATIONS, DOCS_PARAMETERS } from './routes/docs.openapi';
import { EVENT_OPERATIONS, EVENT_PARAMETERS, EVENT_SCHEMAS } from './routes/events.openapi';
import { HEALTH_OPERATIONS, HEALTH_SCHEMAS } from './routes/health.openapi';
import { LIFECYCLE_OPERATIONS, LIFECYCLE_PARAMETERS, LIFECYCLE_SCHEMAS } from './routes/lifecycle.openapi';
import { READ_OPERATIONS, READ_PARAMETERS, READ_SCHEMAS } from './routes/reads.openapi';
import { RESOLVE_OPERATIONS, RESOLVE_SCHEMAS } from './routes/resolve.openapi';
import { WEBHOOK_OPERATIONS, WEBHOOK_PARAMETERS, WEBHOOK_SCHEMAS } from './routes/webhooks.openapi';
import { WRITE_OPERATIONS, WRITE_PARAMETERS, WRITE_SCHEMAS } from './routes/writes.openapi';
import { ROLLOUT_OPERATIONS, ROLLOUT_PARAMETERS, ROLLOUT_SCHEMAS } from './routes/usage.openapi';
import { KEY_OPERATIONS, KEY_PARAMETERS, KEY_SCHEMAS } from './routes/keys.openapi';
import { RELEASE_OPERATIONS, RELEASE_PARAMETERS, RELEASE_SCHEMAS } from './routes/release.openapi';
import { AUDIT_OPERATIONS, AUDIT_PARAMETERS } from './routes/audit.openapi';
import { MCP_OPERATIONS, MCP_PARAMETERS, MCP_SCHEMAS } from './routes/mcp.openapi';
import { SCOPES } from '../auth/scopes';

export type { Operation } from './operations';

/**
 * The service's own contract, OpenAPI 3.1, made by a pure function from the route table and the
 * io-ts codecs that validate requests and type the answers: every schema in it is generated
 * (src/jsonSchema.ts), none is written by hand. Served at GET /api/v1/openapi.json and rendered
 * at /docs. Tests validate it with an OpenAPI validator, check every answer the HTTP suites
 * receive against it, and check the route table against the routes the app registers.
 *
 * Each resource describes its operations beside its routes (`routes/<resource>.openapi.ts`: an
 * `Operation[]`, with the schemas and parameters only it uses; ./operations.ts has the type and
 * what several share); this file only puts them together: one spread line per array.
 */

/** The route table: every endpoint of the service. */
export const OPERATIONS: readonly Operation[] = [
  ...WRITE_OPERATIONS,
  ...DOTPROMPT_OPERATIONS,
  ...READ_OPERATIONS,
  ...DESIGNATE_OPERATIONS,
  ...LIFECYCLE_OPERATIONS,
  ...EVENT_OPERATIONS,
  ...RESOLVE_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...CONSUMER_GROUP_OPERATIONS,
  ...ROLLOUT_OPERATIONS,
  ...KEY_OPERATIONS,
  ...RELEASE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...MCP_OPERATIONS,
  ...HEALTH_OPERATIONS,
  ...DOCS_OPERATIONS,
  ...CONSOLE_OPERATIONS,
];

/** Every schema of the document, by name, with the codec it is generated from. */
const SCHEMAS: Schemas = [
  ...SHARED_SCHEMAS,
  ...WRITE_SCHEMAS,
  ...READ_SCHEMAS,
  ...DESIGNATE_SCHEMAS,
  ...LIFECYCLE_SCHEMAS,
  ...EVENT_SCHEMAS,
  ...RESOLVE_SCHEMAS,
  ...WEBHOOK_SCHEMAS,
  ...CONSUMER_GROUP_SCHEMAS,
  ...ROLLOUT_SCHEMAS,
  ...KEY_SCHEMAS,
  ...RELEASE_SCHEMAS,
  ...HEALTH_SCHEMAS,
  ...MCP_SCHEMAS,
];

const PARAMETERS = {
  ...SHARED_PARAMETERS,
  ...WRITE_PARAMETERS,
  ...DOTPROMPT_PARAMETERS,
  ...READ_PARAMETERS,
  ...LIFECYCLE_PARAMETERS,
  ...EVENT_PARAMETERS,
  ...WEBHOOK_PARAMETERS,
  ...CONSUMER_GROUP_PARAMETERS,
  ...ROLLOUT_PARAMETERS,
  ...KEY_PARAMETERS,
  ...RELEASE_PARAMETERS,
  ...AUDIT_PARAMETERS,
  ...MCP_PARAMETERS,
  ...DOCS_PARAMETERS,
  ...CONSOLE_PARAMETERS,
};

const response = ({ description, content, headers = [] }: Answer) => ({
  description,
  headers: Object.fromEntries(['X-Request-Id' as Header, ...headers].map((h) => [h, { $ref: `#/components/headers/${h}` }])),
  ...(content
    ? {
        content: Object.fromEntries(
          Object.entries(content).map(([type, schema]) => [
            type,
            { schema: typeof schema === 'string' ? { $ref: `#/components/schemas/${schema}` } : schema },
          ]),
        ),
      }
    : {}),
});

const operation = (op: Operation) => ({
  operationId: op.operationId,
  summary: op.summary,
  description: op.scope ? `${op.description}\n\nNeeds an API key with the \`${op.scope}\` scope.` : op.description,
  tags: [op.tag],
  security: op.scope ? [{ bearer: [] }] : [],
  ...(op.scope ? { 'x-required-scope': op.scope } : {}),
  ...(op.parameters || op.scope
    ? {
        parameters: [...(op.parameters ?? []), ...(op.scope ? ['workspace_id'] : [])].map((p) => ({
          $ref: `#/components/parameters/${p}`,
        })),
      }
    : {}),
  ...(op.requestBody
    ? {
        requestBody: {
          required: true,
          content:
            typeof op.requestBody === 'string'
              ? { 'application/json': { schema: { $ref: `#/components/schemas/${op.requestBody}` } } }
              : { [op.requestBody.type]: { schema: op.requestBody.schema } },
        },
      }
    : {}),
  responses: {
    ...Object.fromEntries(Object.entries(op.answers).map(([status, answer]) => [status, response(answer)])),
    ...Object.fromEntries(op.errors.map((status) => [status, { $ref: `#/components/responses/${status}` }])),
  },
});

let document: Record<string, unknown> | undefined;

/** The document (made once: it depends on nothing but the code). */
export const openApiDocument = (): Record<string, unknown> => {
  if (document) return document;
  const refs = new Map<t.Any, string>(SCHEMAS.map(([name, codec]) => [codec, name]));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  document = {
    openapi: '3.1.0',
    info: {
      title: 'presets',
      version: '1.0.0',
      summary: 'Named, versioned, reusable LLM inference configurations, event-sourced.',
      description:
        'Create or version a preset by POSTing the body of an inference request (OpenAI chat-completions, Anthropic messages or OpenAI responses), ' +
        "as OpenRouter's presets API does; read presets and versions, designate a version, and follow the events. Errors come in one envelope, " +
        '`{"error":{"code","message","metadata"}}`. Generated from the service\'s own codecs.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'Presets', description: 'Create, version, read and designate presets.' },
      { name: 'Events', description: 'The event streams, for auditors and analytics consumers.' },
      { name: 'Webhooks', description: 'Signed, ordered, at-least-once delivery of preset events to HTTP endpoints.' },
      { name: 'Keys', description: 'API keys made, listed and revoked through the API.' },
      { name: 'Service', description: 'Health, this document and its reference page.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(SCHEMAS.map(([name, codec]) => [name, toJsonSchema(codec, { refs })])),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: {
        ...Object.fromEntries(Object.entries(ERRORS).map(([status, answer]) => [status, response({ ...answer, content: json('Error') })])),
        '405': response({ description: 'Known path, another method (with Allow).', content: json('Error') }),
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `An API key: \`Authorization: Bearer <key>\`. Keys carry scopes (${SCOPES.join(', ')}) and workspaces.`,
        },
      },
    },
  };
  return document;
};
