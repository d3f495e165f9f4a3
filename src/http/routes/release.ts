import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ParameterizedContext } from 'koa';
import { integerBetween } from '../../formats/codecs';
import type { CommandOutcome, PresetCommandRequest } from '../../presets/handler';
import { currentOf, type PresetState } from '../../presets/state';
import { PresetStatus, type PresetChangeProposed, type PresetEvent } from '../../presets/events';
import { formatErrors } from '../../validation';
import { badRequest, notFound } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { NoteField, noteOf } from '../note';
import type { AppContext, AppState } from '../types';
import { presetLocation } from './locations';
import { answerWrite, ifMatchOf, requestedBy, type WriteDeps } from './writes';

/**
 * Release control (docs/keys-and-release.md): protecting a label or the designated version
 * (scope presets:release), and deciding on the proposals that changes of a target protected with
 * approvals become. Every rule is the preset decider's (src/presets/proposals.ts): these routes only
 * say who asks, with the users up their key's chain of makers.
 */
export const ProtectionBody = t.intersection([
  t.type({ protected: t.boolean }),
  t.partial({ approvals: integerBetween(0, 2), note: NoteField }),
]);

/**
 * A change that waits for approvals: the 202 answer of a change of a target protected with
 * approvals (a move, a removal, a lower or lifted protection, a status change of its preset).
 */
export const ProposalAnswer = t.type(
  {
    data: t.intersection([
      t.type({
        proposal_id: t.string,
        preset_id: t.string,
        slug: t.string,
        /** Null: the designated version (or, for a status change, the preset). */
        label: t.union([t.string, t.null]),
        /** A move's version; null for the other changes. */
        version: t.union([t.number, t.null]),
        previous_version: t.union([t.number, t.null]),
        approvals_required: t.number,
        status: t.literal('proposed'),
        change: t.keyof({ move: null, remove_label: null, protect: null, status: null }),
      }),
      t.partial({
        /** A `protect` change: the protection proposed (null: lifted). */
        protection: t.union([t.type({ approvals: t.number }), t.null]),
        /** A `status` change: the status proposed. */
        new_status: PresetStatus,
      }),
    ]),
  },
  'ProposalAnswer',
);

type Ctx = ParameterizedContext<AppState, AppContext>;

/** The proposal a command made, if it made one. */
const proposalOf = (events: readonly PresetEvent[]) =>
  events.find(
    (e): e is Extract<PresetEvent, { type: 'LabelMoveProposed' | 'PresetChangeProposed' }> =>
      e.type === 'LabelMoveProposed' || e.type === 'PresetChangeProposed',
  );

/**
 * The answer of a command that may have become a proposal: 202 with the proposal, else the preset
 * as the write left it (answerWrite).
 */
export const answerMoveOrProposal = async (ctx: Ctx, deps: WriteDeps, slug: string, outcome: CommandOutcome) => {
  if (!outcome.state.exists) throw new Error('a move was decided for an absent preset');
  const proposed = proposalOf(outcome.events);
  if (proposed) {
    const d = proposed.data;
    // Read your writes: once answered, the preset's document lists the proposal (or, past the
    // wait's bound, soon will: the 202 is the same either way).
    await deps.waitForPreset(ctx.state.workspaceId, slug, outcome.revision, deps.readYourWritesTimeoutMs);
    ctx.status = 202;
    // The preset's document lists its open proposals (there is no resource of a proposal's own).
    ctx.set('Location', presetLocation(slug));
    const common = { proposal_id: d.proposalId, preset_id: d.presetId, slug, label: d.label, approvals_required: d.approvalsRequired };
    const answer: t.TypeOf<typeof ProposalAnswer> = {
      data:
        proposed.type === 'LabelMoveProposed'
          ? {
              ...common,
              version: proposed.data.versionNumber,
              previous_version: proposed.data.previousVersionNumber,
              status: 'proposed',
              change: 'move',
            }
          : { ...common, version: null, ...changeAnswer(outcome.state, proposed.data), status: 'proposed' },
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

/** What a proposal other than a move answers: what the target names now, and the change. */
const changeAnswer = (state: Extract<PresetState, { exists: true }>, d: PresetChangeProposed['data']) => {
  const c = d.change;
  if (c.kind === 'remove_label') return { change: c.kind, previous_version: c.versionNumber };
  if (c.kind === 'status') return { change: c.kind, previous_version: null, new_status: c.status };
  return { change: c.kind, previous_version: currentOf(state, d.label), protection: c.protected ? { approvals: c.approvals } : null };
};

const PROPOSAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const releaseRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  const release = requireScope('presets:release');

  const run = async (ctx: Ctx, command: PresetCommandRequest) => deps.handle(command, ifMatchOf(ctx));

  const protection = (label: (ctx: Ctx) => string | null) => async (ctx: Ctx) => {
    const slug = ctx.params.slug!;
    const body = ProtectionBody.decode(ctx.state.body);
    if (E.isLeft(body)) {
      throw badRequest('the body must be {"protected": true|false, "approvals"?: 0, 1 or 2, "note"?: "…"}', formatErrors(body.left));
    }
    const { protected: isProtected, approvals = 0 } = body.right;
    const outcome = await run(ctx, {
      type: 'ProtectLabel',
      data: {
        workspaceId: ctx.state.workspaceId,
        slug,
        label: label(ctx),
        protected: isProtected,
        approvals,
        note: noteOf(ctx, body.right.note),
      },
      metadata: requestedBy(ctx),
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
      const outcome = await run(ctx, {
        type,
        data: { workspaceId: ctx.state.workspaceId, slug, proposalId, note: noteOf(ctx) },
        metadata: requestedBy(ctx),
      });
      await answerMoveOrProposal(ctx, deps, slug, outcome);
    });
  }
};
