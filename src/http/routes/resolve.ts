import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type { ReadModelQueries } from '../../../projections/readmodel/readModel';
import { resolveRequest } from '../../resolve/resolve';
import { ApiError } from '../errors';
import { requireScope } from '../middleware/auth';
import { sendDataJson } from '../jsonData';
import { jsonBody } from '../middleware/jsonBody';
import { readModelSource } from '../presetSource';
import { resolutionJson } from '../resolutionJson';
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
}

export const resolveRoutes = (router: Router<AppState, AppContext>, deps: ResolveDeps) => {
  for (const [path, format] of FORMAT_ROUTES) {
    router.post(`/api/v1/resolve/${path}`, requireScope('presets:read'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
      const resolved = await resolveRequest(format, ctx.state.body, readModelSource(deps.readModel, ctx.state.workspaceId));
      if (E.isLeft(resolved)) throw new ApiError(resolved.left.status, resolved.left.message, resolved.left.metadata);
      sendDataJson(ctx, resolutionJson(resolved.right));
    });
  }
};
