import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { refine } from '../../formats/codecs';
import { formatErrors } from '../../validation';
import { badRequest } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { NoteField, noteOf } from '../note';
import type { AppContext, AppState } from '../types';
import { presetLocation } from './locations';
import { answerMoveOrProposal } from './release';
import { answerWrite, ifMatchOf, requestedBy, type WriteDeps } from './writes';

/** A version number: a whole number from 1. */
export const VersionNumber = refine(t.number, (n) => Number.isSafeInteger(n) && n >= 1, 'positive integer', {
  type: 'integer',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
});
/** `{"version": N, "note"?: "…"}`; other keys are ignored, as in the request formats. */
export const DesignateBody = t.intersection([t.type({ version: VersionNumber }), t.partial({ note: NoteField })]);

/**
 * Rollback (or roll forward): make an existing version the designated one. The answer is the
 * preset as this write left it, like the POST routes'; designating the designated version again
 * stores nothing and answers the preset as it is.
 */
export const designateRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  router.put('/api/v1/presets/:slug/designated-version', requireScope('presets:write'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const slug = ctx.params.slug!;
    const body = DesignateBody.decode(ctx.state.body);
    if (E.isLeft(body))
      throw badRequest('the body must be {"version": N} with N a version number from 1, and an optional "note"', formatErrors(body.left));
    const { version } = body.right;
    const outcome = await deps.handle(
      {
        type: 'DesignateVersion',
        data: { workspaceId: ctx.state.workspaceId, slug, version, note: noteOf(ctx, body.right.note) },
        metadata: requestedBy(ctx),
      },
      ifMatchOf(ctx),
    );
    if (!outcome.state.exists) throw new Error('a designated version was decided for an absent preset');
    // A protected designation with approvals: the move is a proposal (202).
    if (outcome.events.some((e) => e.type === 'LabelMoveProposed')) return answerMoveOrProposal(ctx, deps, slug, outcome);
    await answerWrite(ctx, deps, {
      slug,
      revision: outcome.revision,
      presetId: outcome.state.presetId,
      version: { id: outcome.state.versionIds[version - 1]!, number: version },
      pendingLocation: presetLocation(slug),
    });
  });
};
