import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { refine } from '../../formats/codecs';
import { DecisionRejected } from '../../presets/handler';
import { formatErrors } from '../../validation';
import { badRequest, notFound } from '../errors';
import { parseIfMatch } from '../etag';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import type { AppContext, AppState } from '../types';
import { presetLocation } from './locations';
import { answerWrite, type WriteDeps } from './writes';

/** `{"version": N}`, N a whole number from 1; other keys are ignored, as in the request formats. */
export const DesignateBody = t.type({
  version: refine(t.number, (n) => Number.isSafeInteger(n) && n >= 1, 'positive integer', { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

/**
 * Rollback (or roll forward): make an existing version the designated one. The answer is the
 * preset as this write left it, like the POST routes'; designating the designated version again
 * stores nothing and answers the preset as it is.
 */
export const designateRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  router.put('/api/v1/presets/:slug/designated-version', requireScope('presets:write'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const slug = ctx.params.slug!;
    const { caller, requestId } = ctx.state;
    const body = DesignateBody.decode(ctx.state.body);
    if (E.isLeft(body)) throw badRequest('the body must be {"version": N} with N a version number from 1', formatErrors(body.left));
    const { version } = body.right;
    const expectedRevision = parseIfMatch(ctx.get('If-Match'));
    const outcome = await deps
      .handle({ type: 'DesignateVersion', workspaceId: caller.workspaceId, slug, actorUserId: caller.userId, version }, { requestId, expectedRevision })
      .catch((error: unknown) => {
        // Another workspace's preset of this slug is a different stream, so it is "not found" too.
        if (error instanceof DecisionRejected && error.reason.type !== 'PresetInconsistent') throw notFound(error.message);
        throw error;
      });
    const { state } = outcome;
    if (state.status !== 'active') throw new Error('a designated version was decided for an absent preset');
    await answerWrite(ctx, deps, {
      slug,
      revision: outcome.revision,
      presetId: state.presetId,
      version: { id: state.versionIds[version - 1]!, number: version },
      pendingLocation: presetLocation(slug),
      occurredAt: outcome.events[0]?.data.occurredAt,
    });
  });
};
