import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type { ReadModelQueries } from '../../../projections/readmodel/readModel';
import { statusClass } from '../../observability/metrics';
import { resolveRequest } from '../../resolve/resolve';
import type { FormatName } from '../../formats';
import { ApiError } from '../errors';
import { requireScope } from '../middleware/auth';
import { sendDataJson } from '../jsonData';
import { jsonBody } from '../middleware/jsonBody';
import { readModelSource } from '../presetSource';
import { resolutionJson } from '../resolutionJson';
import type { UsageCounters } from '../../usage/counters';
import type { AppContext, AppState } from '../types';
import { FORMAT_ROUTES } from './writes';
import { asOfSource, isProblem, parseMoment, type PresetAsOfReader } from '../asOf';
import { badRequest } from '../errors';

/**
 * Using a preset: POST a request of one of the three formats that names a preset, and get back
 * the request to send, with the preset merged in by OpenRouter's rules (src/resolve/). Nothing is
 * stored; the read model is the source of presets and versions.
 */
export interface ResolveDeps {
  readModel: Pick<ReadModelQueries, 'getPresetJson' | 'getVersion' | 'getLatestVersion'>;
  bodyLimitBytes: number;
  /** Counts each resolution by format and outcome (`resolved`, or the refusal's status class). */
  countResolution?: (format: string, outcome: string) => void;
  /** Counts each resolution answered, by preset, label and version (GET /api/v1/presets/{slug}/usage). */
  usageCounters?: Pick<UsageCounters, 'count'>;
  /** `"as_of"` in the body: resolve from the presets as they stood then, folded from their events. */
  presetAsOf?: PresetAsOfReader;
}

/** The header that names the key a split label is resolved by, before the body's own caller id. */
export const SPLIT_KEY_HEADER = 'Preset-Split-Key';

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * One resolution as POST /api/v1/resolve/{format} answers it: the answer's `data` as JSON text, or
 * an ApiError (400, 404, 409) saying why not. Counted and its usage recorded as the route's; the
 * MCP server's `resolve` tool calls it too (src/mcp/server.ts).
 */
export const resolveAnswer = async (
  deps: ResolveDeps,
  format: FormatName,
  requestBody: unknown,
  workspaceId: string,
  splitKey: string | undefined,
): Promise<string> => {
  let body = requestBody;
  let source = readModelSource(deps.readModel, workspaceId);
  // `as_of` is the service's, never part of the request to send: taken off the body here.
  const asOf = isObject(body) && 'as_of' in body;
  if (isObject(body) && asOf) {
    const { as_of: raw, ...rest } = body;
    const at = parseMoment(raw, '$.as_of');
    if (isProblem(at)) throw badRequest('the body is not a valid request', [at]);
    if (!deps.presetAsOf) throw badRequest('the body is not a valid request', [{ path: '$.as_of', message: 'not available here' }]);
    body = rest;
    source = asOfSource(deps.presetAsOf, workspaceId, at, source);
  }
  const resolved = await resolveRequest(format, body, source, { splitKey });
  deps.countResolution?.(format, E.isLeft(resolved) ? statusClass(resolved.left.status) : 'resolved');
  if (E.isLeft(resolved)) throw new ApiError(resolved.left.status, resolved.left.message, resolved.left.metadata);
  const { preset } = resolved.right;
  // Usage is what was served: a look at the past (as_of) serves nothing.
  if (!asOf) deps.usageCounters?.count({ workspaceId, presetId: preset.id, label: preset.label, version: preset.version });
  return resolutionJson(resolved.right);
};

export const resolveRoutes = (router: Router<AppState, AppContext>, deps: ResolveDeps) => {
  for (const [path, format] of FORMAT_ROUTES) {
    router.post(`/api/v1/resolve/${path}`, requireScope('presets:read'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
      const splitKey = ctx.get(SPLIT_KEY_HEADER) || undefined;
      sendDataJson(ctx, await resolveAnswer(deps, format, ctx.state.body, ctx.state.workspaceId, splitKey));
    });
  }
};
