import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ParameterizedContext } from 'koa';
import { integerBetween } from '../../formats/codecs';
import type { CommandOutcome, PresetCommandRequest } from '../../presets/handler';
import { formatErrors } from '../../validation';
import { badRequest, notFound } from '../errors';
import { parseIfMatch } from '../etag';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { NoteField, noteOf } from '../note';
import type { AppContext, AppState } from '../types';
import { presetLocation } from './locations';
import { answerWrite, type WriteDeps } from './writes';

/**
 * Release control (docs/keys-and-release.md): protecting a label or the designated version
 * (scope presets:release), and deciding on the proposals that moves of a target protected with
 * approvals become. Every rule is the preset decider's (`guardProtected` and the proposal steps in
 * src/presets/decider.ts): these routes only say who asks.
 */
export const ProtectionBody = t.intersection([
  t.type({ protected: t.boolean }),
  t.partial({ approvals: integerBetween(0, 2), note: NoteField }),
]);

/** A move that waits for approvals: the 202 answer of a move of a protected label (or designation). */
export const ProposalAnswer = t.type(
  {
    data: t.type({
      proposal_id: t.string,
      preset_id: t.string,
      slug: t.string,
      /** Null: the designated version. */
      label: t.union([t.string, t.null]),
      version: t.number,
      previous_version: t.union([t.number, t.null]),
      approvals_required: t.number,
      status: t.literal('proposed'),
    }),
  },
  'ProposalAnswer',
);

type Ctx = ParameterizedContext<AppState, AppContext>;

/** Who asks: the caller, in the workspace the request acts in, and whether its key may release. */
export const actor = (ctx: Ctx) => ({
  workspaceId: ctx.state.workspaceId,
  actorUserId: ctx.state.caller.userId,
  mayRelease: ctx.state.caller.scopes.has('presets:release'),
});

/**
 * The answer of a command that may have become a proposal: 202 with the proposal, else the preset
 * as the write left it (answerWrite).
 */
export const answerMoveOrProposal = async (ctx: Ctx, deps: WriteDeps, slug: string, outcome: CommandOutcome) => {
  if (!outcome.state.exists) throw new Error('a move was decided for an absent preset');
  const proposed = outcome.events[0];
  if (proposed?.type === 'LabelMoveProposed') {
    const d = proposed.data;
    // Read your writes: once answered, the preset's document lists the proposal (or, past the
    // wait's bound, soon will: the 202 is the same either way).
    await deps.waitForPreset(ctx.state.workspaceId, slug, outcome.revision, deps.readYourWritesTimeoutMs);
    ctx.status = 202;
    // The preset's document lists its open proposals (there is no resource of a proposal's own).
    ctx.set('Location', presetLocation(slug));
    const answer: t.TypeOf<typeof ProposalAnswer> = {
      data: {
        proposal_id: d.proposalId,
        preset_id: d.presetId,
        slug,
        label: d.label,
        version: d.versionNumber,
        previous_version: d.previousVersionNumber,
        approvals_required: d.approvalsRequired,
        status: 'proposed',
      },
    };
    ctx.body = answer;
    return;
  }
  await answerWrite(ctx, deps, {
    slug,
    revision: outcome.revision,
    presetId: outcome.state.presetId,
    pendingLocation: presetLocation(slug),
  });
};

const PROPOSAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const releaseRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  const release = requireScope('presets:release');

  const run = async (ctx: Ctx, command: PresetCommandRequest) =>
    deps.handle(command, {
      requestId: ctx.state.requestId,
      keyId: ctx.state.caller.keyId,
      expectedRevision: parseIfMatch(ctx.get('If-Match')),
    });

  const protection = (label: (ctx: Ctx) => string | null) => async (ctx: Ctx) => {
    const slug = ctx.params.slug!;
    const body = ProtectionBody.decode(ctx.state.body);
    if (E.isLeft(body)) {
      throw badRequest('the body must be {"protected": true|false, "approvals"?: 0, 1 or 2, "note"?: "…"}', formatErrors(body.left));
    }
    const { protected: isProtected, approvals = 0 } = body.right;
    const outcome = await run(ctx, {
      type: 'ProtectLabel',
      slug,
      ...actor(ctx),
      label: label(ctx),
      protected: isProtected,
      approvals,
      note: noteOf(ctx, body.right.note),
    });
    await answerMoveOrProposal(ctx, deps, slug, outcome);
  };

  router.put(
    '/api/v1/presets/:slug/labels/:label/protection',
    release,
    jsonBody(deps.bodyLimitBytes),
    protection((ctx) => ctx.params.label!),
  );
  router.put(
    '/api/v1/presets/:slug/designation/protection',
    release,
    jsonBody(deps.bodyLimitBytes),
    protection(() => null),
  );

  for (const [step, type] of [
    ['approve', 'ApproveProposal'],
    ['reject', 'RejectProposal'],
    ['withdraw', 'WithdrawProposal'],
  ] as const) {
    // Withdrawing is the proposer's, whatever the key's scopes (the decider checks who); approving and rejecting need presets:release.
    const scope = step === 'withdraw' ? requireScope('presets:write') : release;
    router.post(`/api/v1/presets/:slug/proposals/:proposal/${step}`, scope, async (ctx) => {
      const slug = ctx.params.slug!;
      const proposalId = ctx.params.proposal!;
      if (!PROPOSAL_ID.test(proposalId)) throw notFound(`preset ${JSON.stringify(slug)} has no proposal ${JSON.stringify(proposalId)}`);
      const outcome = await run(ctx, { type, slug, ...actor(ctx), proposalId, note: noteOf(ctx) });
      await answerMoveOrProposal(ctx, deps, slug, outcome);
    });
  }
};
