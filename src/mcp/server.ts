import * as E from 'fp-ts/Either';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { SOURCE_FORMATS, type PresetStatus } from '../presets/events';
import { SLUG } from '../presets/names';
import { resolveRequest } from '../resolve/resolve';
import type { ResolveFailure } from '../resolve/failure';
import { PROMPT_VARIABLES } from '../resolve/variables';
import { readModelSource } from '../http/presetSource';
import { ApiError, envelope } from '../http/errors';
import { resolveAnswer, type ResolveDeps } from '../http/routes/resolve';
import { LISTED_BY_DEFAULT, statusOfJson } from '../http/routes/reads';
import type { ReadModelQueries } from '../../projections/readmodel/readModel';
import { parseArguments } from './arguments';
import { promptOf, promptResult } from './prompts';

/**
 * One MCP session's server: the prompts, resources and the `resolve` tool of one workspace, read
 * from the read model and rendered by the service's own resolve (docs/mcp.md). The transport and
 * the session's bounds are the route's (src/http/routes/mcp.ts) and the registry's (./sessions.ts).
 */
export interface McpServerDeps extends ResolveDeps {
  readModel: ResolveDeps['readModel'] & Pick<ReadModelQueries, 'listPresets' | 'getPreset' | 'getVersion'>;
}

export const MCP_SERVER_NAME = 'presets';
/** Prompts and resources per page of `prompts/list` and `resources/list` (the read model's largest page). */
export const MCP_PAGE = 100;
/** The JSON-RPC error code MCP gives a resource that is not there. */
export const RESOURCE_NOT_FOUND = -32002;

const USABLE: readonly PresetStatus[] = ['active'];
const PRESET_URI = /^presets:\/\/([^/]+)$/;
const VERSION_URI = /^presets:\/\/([^/]+)\/versions\/([1-9]\d{0,8})$/;

/** A page cursor: the offset of the page's first item, as text. */
const offsetOf = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  if (!/^(0|[1-9]\d{0,8})$/.test(cursor)) throw new McpError(ErrorCode.InvalidParams, `invalid cursor ${JSON.stringify(cursor)}`);
  return Number(cursor);
};
const nextCursor = (offset: number, total: number) => (offset + MCP_PAGE < total ? { nextCursor: String(offset + MCP_PAGE) } : {});

/** A resolve's refusal as an MCP error: InvalidParams, the API's error envelope as its data, problems' paths naming the arguments. */
export const refusalError = (failure: ResolveFailure): McpError => {
  const metadata = { ...failure.metadata };
  if (Array.isArray(metadata.errors)) {
    metadata.errors = (metadata.errors as Array<{ path: string; message: string }>).map((e) => ({
      ...e,
      path: e.path.startsWith(PROMPT_VARIABLES) ? `arguments${e.path.slice(PROMPT_VARIABLES.length)}` : e.path,
    }));
  }
  return new McpError(ErrorCode.InvalidParams, failure.message, envelope(failure.status, failure.message, metadata).error);
};

export const createMcpServer = (deps: McpServerDeps, workspaceId: string): McpServer => {
  const mcp = new McpServer(
    { name: MCP_SERVER_NAME, version: '1' },
    {
      capabilities: { prompts: { listChanged: true }, resources: { listChanged: true } },
      instructions:
        'Prompts are the presets of this workspace (their designated versions); resources presets://{slug} and ' +
        'presets://{slug}/versions/{n} are their documents as JSON; the resolve tool resolves an inference request that names a preset.',
    },
  );
  const { server } = mcp;
  const { readModel } = deps;

  server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
    const offset = offsetOf(request.params?.cursor);
    const { items, total } = await readModel.listPresets(workspaceId, { offset, limit: MCP_PAGE }, USABLE);
    return { prompts: items.map(promptOf), ...nextCursor(offset, total) };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const missing = () =>
      new McpError(
        ErrorCode.InvalidParams,
        `no prompt ${JSON.stringify(name)} in this workspace`,
        envelope(404, `no preset ${JSON.stringify(name)} in this workspace`).error,
      );
    if (!SLUG.test(name)) throw missing();
    const record = await readModel.getPreset(workspaceId, name);
    if (!record) throw missing();
    const preset = record.view;
    // The arguments are typed by the schema of the version rendered: this document's designated one.
    const given = args && Object.keys(args).length > 0 ? parseArguments(preset.designated_version.variables, args) : undefined;
    const source = { ...readModelSource(readModel, workspaceId), preset: async () => preset };
    const resolved = await resolveRequest('chat_completions', { model: `@preset/${name}`, messages: [] }, source, { variables: given });
    if (E.isLeft(resolved)) throw refusalError(resolved.left);
    const { preset: used } = resolved.right;
    deps.usageCounters?.count({ workspaceId, presetId: used.id, label: used.label, version: used.version });
    return promptResult(resolved.right, preset.description);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = offsetOf(request.params?.cursor);
    const { items, total } = await readModel.listPresets(workspaceId, { offset, limit: MCP_PAGE }, LISTED_BY_DEFAULT);
    return {
      resources: items.map((p) => ({
        uri: `presets://${p.slug}`,
        name: p.slug,
        title: p.name,
        ...(p.description ? { description: p.description } : {}),
        mimeType: 'application/json',
      })),
      ...nextCursor(offset, total),
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'presets://{slug}',
        name: 'preset',
        title: 'A preset',
        description: 'The preset with its designated version, labels and status: what GET /api/v1/presets/{slug} answers as data.',
        mimeType: 'application/json',
      },
      {
        uriTemplate: 'presets://{slug}/versions/{version}',
        name: 'preset-version',
        title: 'A version of a preset',
        description: 'One version by number: what GET /api/v1/presets/{slug}/versions/{version} answers as data.',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const notFound = (message: string) => new McpError(RESOURCE_NOT_FOUND, message, { uri });
    const asPreset = PRESET_URI.exec(uri);
    const asVersion = asPreset ? null : VERSION_URI.exec(uri);
    const slug = (asPreset ?? asVersion)?.[1];
    if (slug === undefined || !SLUG.test(slug)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `${JSON.stringify(uri)} is not a presets:// resource: presets://{slug} or presets://{slug}/versions/{n}`,
        { uri },
      );
    }
    const document = await readModel.getPresetJson(workspaceId, slug);
    // As GET /api/v1/presets/{slug} answers by default: an archived preset is not there.
    if (!document || statusOfJson(document.json) === 'archived') throw notFound(`no preset ${JSON.stringify(slug)} in this workspace`);
    if (asPreset) return { contents: [{ uri, mimeType: 'application/json', text: document.json }] };
    const number = Number(asVersion![2]);
    const presetId = (JSON.parse(document.json) as { id: string }).id;
    const version = await readModel.getVersion(presetId, number);
    if (!version) throw notFound(`preset ${JSON.stringify(slug)} has no version ${number}`);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(version) }] };
  });

  mcp.registerTool(
    'resolve',
    {
      title: 'Resolve a request that names a preset',
      description:
        'Resolves an inference request that names a preset ("model": "@preset/<slug>", "<model>@preset/<slug>", or "preset": "<slug>"; ' +
        'templated versions take "prompt_variables") into the request to send, as POST /api/v1/resolve/{format} answers: ' +
        '{"data": {"request", "preset", "dropped", "overridden", ...}}. A refusal is an error result holding the API\'s error envelope.',
      inputSchema: {
        format: z
          .enum(SOURCE_FORMATS)
          .describe('The request format: chat_completions (OpenAI), messages (Anthropic) or responses (OpenAI)'),
        body: z.record(z.string(), z.unknown()).describe('The request body, as it would be POSTed to /api/v1/resolve/{format}'),
        split_key: z.string().optional().describe('The key a split label picks its version by (the Preset-Split-Key header)'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ format, body, split_key: splitKey }) => {
      try {
        const text = `{"data":${await resolveAnswer(deps, format, body, workspaceId, splitKey)}}`;
        return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const answer = envelope(error.status, error.message, error.metadata);
        return { isError: true, content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
      }
    },
  );
  return mcp;
};
