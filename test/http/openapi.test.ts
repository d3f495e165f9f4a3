import { validate as validateOpenApi } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import type { AppDeps } from '#src/http/app';
import { apiRoutes, healthRoutes } from '#src/http/app';
import { mcpMount } from '#src/mcp/route';
import { createMcpSessions } from '#src/mcp/sessions';
import { CONSOLE_PATHS } from '#src/http/console';
import { docsRoutes } from '#src/http/routes/docs';
import { openApiDocument, OPERATIONS } from '#src/http/openapi';
import * as chatCompletions from '#src/formats/chatCompletions';
import * as messages from '#src/formats/messages';
import * as responses from '#src/formats/responses';
import { SOURCE_FORMATS } from '#src/presets/events';
import type { FormatName } from '#src/formats';
import { referenceFields } from '../support/reference';
import { useApiSpecification } from '../support/apiSpecification';

/**
 * The service's own contract: a valid OpenAPI 3.1 document (checked by @readme/openapi-parser),
 * served without a key, covering exactly the routes the app registers, with schemas that say what
 * the codecs they come from accept.
 */
const doc = openApiDocument() as {
  paths: Record<string, Record<string, { operationId: string }>>;
  components: { schemas: Record<string, object> };
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validateOpenApi(JSON.parse(JSON.stringify(doc)));
    expect(result).toMatchObject({ valid: true });
    expect(doc).toMatchObject({ openapi: '3.1.0' });
  });

  it('has schemas that are valid JSON Schema (draft 2020-12)', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect({ name, valid: ajv.validateSchema(schema), errors: ajv.errors ?? null }).toEqual({ name, valid: true, errors: null });
    }
  });

  it('documents exactly the routes the app registers, each once', () => {
    const deps = {
      readModel: {},
      readiness: async () => ({ ready: true, checks: {} }),
      mounts: [mcpMount(createMcpSessions())],
    } as unknown as AppDeps;
    const registered = [...apiRoutes(deps).stack, ...healthRoutes(deps.readiness).stack, ...docsRoutes().stack]
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`))
      .concat(CONSOLE_PATHS.map((path) => `GET ${path}`)); // the console's middleware, before the key is asked for
    const documented = OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect([...registered].sort()).toEqual([...documented].sort());
    expect(new Set(OPERATIONS.map((op) => op.operationId)).size).toBe(OPERATIONS.length);
  });

  it("names the preset operations as OpenRouter's reference does", () => {
    const ids = OPERATIONS.map((op) => op.operationId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'createPresetsChatCompletions',
        'createPresetsMessages',
        'createPresetsResponses',
        'listPresets',
        'getPreset',
        'listPresetVersions',
        'getPresetVersion',
      ]),
    );
  });

  it('secures every /api/v1 operation but the document itself, and the MCP endpoint, with the bearer scheme, and nothing else', () => {
    for (const op of OPERATIONS) {
      const needsKey = (op.path.startsWith('/api/v1/') && op.path !== '/api/v1/openapi.json') || op.path === '/mcp';
      const security = (doc.paths[op.path]![op.method] as unknown as { security: unknown[] }).security;
      expect({ op: op.operationId, security }).toEqual({ op: op.operationId, security: needsKey ? [{ bearer: [] }] : [] });
    }
  });
});

describe('the request schemas of the document say what the codecs accept', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const CODECS: Record<FormatName, [string, t.Mixed]> = {
    chat_completions: ['ChatCompletionsRequest', chatCompletions.codec],
    messages: ['MessagesRequest', messages.codec],
    responses: ['ResponsesRequest', responses.codec],
  };
  const BASE: Record<FormatName, Record<string, unknown>> = {
    chat_completions: { messages: [] },
    messages: { model: 'm', messages: [] },
    responses: {},
  };
  const PROBES: unknown[] = [
    null,
    true,
    0,
    -1,
    0.5,
    3,
    21,
    1e6,
    'x',
    '',
    'auto',
    'text',
    'a'.repeat(300),
    {},
    [],
    ['x'],
    [1],
    [{}],
    { a: 'b' },
    ['a', 'b', 'c', 'd', 'e'],
    [{ role: 'system', content: [{ type: 'text' }] }],
    [{ type: 'text', text: 'x' }],
    [{ id: 'fusion', analysis_models: [] }],
    [{ type: 'function', function: { name: 'f'.repeat(65) } }],
    { type: 'json_schema', json_schema: { name: 'n'.repeat(65) } },
    { task_budget: { total: 1 } },
  ];

  it.each(SOURCE_FORMATS)('%s: the same verdict on every field with values of every kind', (format) => {
    const [name, codec] = CODECS[format];
    const validate = ajv.compile({ $id: `urn:presets:${name}`, ...doc.components.schemas[name], components: doc.components });
    const differ: unknown[] = [];
    for (const field of referenceFields(format)) {
      for (const value of PROBES) {
        const body = { ...BASE[format], [field]: value };
        if (validate(body) !== E.isRight(codec.decode(body))) differ.push({ field, value, schema: validate(body) });
      }
    }
    expect(differ).toEqual([]);
  });
});

describe('GET /api/v1/openapi.json', () => {
  const svc = useApiSpecification();

  it('serves the document without a key, cacheable, with an ETag', async () => {
    const res = await svc.request('/api/v1/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('answers 304 to If-None-Match with its ETag', async () => {
    const etag = (await svc.request('/api/v1/openapi.json', { key: null })).headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await svc.request('/api/v1/openapi.json', { key: null, headers: { 'if-none-match': etag } })).status).toBe(304);
    // Node's fetch adds Cache-Control: no-cache to a conditional request: the condition still holds.
    const asFetchSends = { 'if-none-match': etag, 'cache-control': 'no-cache' };
    expect((await svc.request('/api/v1/openapi.json', { key: null, headers: asFetchSends })).status).toBe(304);
  });
});
