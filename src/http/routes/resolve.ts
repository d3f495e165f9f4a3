import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type { ReadModelQueries } from '../../../projections/readmodel/readModel';
import { statusClass } from '../../observability/metrics';
import { resolveRequest } from '../../resolve/resolve';
import { ApiError } from '../errors';
import { requireScope } from '../middleware/auth';
import { sendDataJson } from '../jsonData';
import { jsonBody } from '../middleware/jsonBody';
import { readModelSource } from '../presetSource';
import { resolutionJson } from '../resolutionJson';
import type { UsageCounters } from '../../usage/counters';
import type { AppContext, AppState } from '../types';
import { FORMAT_ROUTES } from './writes';

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
}

/** The header that names the key a split label is resolved by, before the body's own caller id. */
export const SPLIT_KEY_HEADER = 'Preset-Split-Key';

export const resolveRoutes = (router: Router<AppState, AppContext>, deps: ResolveDeps) => {
  for (const [path, format] of FORMAT_ROUTES) {
    router.post(`/api/v1/resolve/${path}`, requireScope('presets:read'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
      const { workspaceId } = ctx.state;
      const splitKey = ctx.get(SPLIT_KEY_HEADER) || undefined;
      const resolved = await resolveRequest(format, ctx.state.body, readModelSource(deps.readModel, workspaceId), { splitKey });
      deps.countResolution?.(format, E.isLeft(resolved) ? statusClass(resolved.left.status) : 'resolved');
      if (E.isLeft(resolved)) throw new ApiError(resolved.left.status, resolved.left.message, resolved.left.metadata);
      const { preset } = resolved.right;
      deps.usageCounters?.count({ workspaceId, presetId: preset.id, label: preset.label, version: preset.version });
      sendDataJson(ctx, resolutionJson(resolved.right));
    });
  }
};
