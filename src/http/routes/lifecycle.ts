import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ParameterizedContext } from 'koa';
import { charsBetween, maxChars, nullable } from '../../formats/codecs';
import type { PresetCommandRequest } from '../../presets/handler';
import { PresetStatus } from '../../presets/events';
import { LABEL, RESERVED_LABELS } from '../../presets/names';
import { formatErrors, type ValidationProblem } from '../../validation';
import { badRequest } from '../errors';
import { parseIfMatch } from '../etag';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { NoteField, noteOf } from '../note';
import type { AppContext, AppState } from '../types';
import { VersionNumber } from './designate';
import { presetLocation } from './locations';
import { answerWrite, type WriteDeps } from './writes';

/**
 * The lifecycle of a preset: its name, description and status (PATCH; DELETE archives), and its
 * labels, named pointers to versions (PUT moves or creates one, DELETE removes it).
 */
export const PatchBody = t.partial({
  name: charsBetween(1, 200),
  description: nullable(maxChars(2000)),
  status: PresetStatus,
});
const PATCH_KEYS = Object.keys(PatchBody.props);

export { LABEL, RESERVED_LABELS };

export const LabelBody = t.intersection([t.type({ version: VersionNumber }), t.partial({ note: NoteField })]);

type Ctx = ParameterizedContext<AppState, AppContext>;
/** A command of this router, without what the path and the caller say. */
type Command = PresetCommandRequest extends infer C
  ? C extends { type: 'ChangePreset' | 'MoveLabel' | 'RemoveLabel' }
    ? Omit<C, 'workspaceId' | 'slug' | 'actorUserId'>
    : never
  : never;

export const lifecycleRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  const write = requireScope('presets:write');

  /** Runs a command on the preset named in the path, and answers with the preset as it left it. */
  const run = async (ctx: Ctx, command: Command) => {
    const slug = ctx.params.slug!;
    const { caller, requestId } = ctx.state;
    const outcome = await deps.handle(
      { ...command, workspaceId: caller.workspaceId, slug, actorUserId: caller.userId } as PresetCommandRequest,
      { requestId, keyId: caller.keyId, expectedRevision: parseIfMatch(ctx.get('If-Match')) },
    );
    if (!outcome.state.exists) throw new Error(`${command.type} was decided for an absent preset`);
    await answerWrite(ctx, deps, {
      slug,
      revision: outcome.revision,
      presetId: outcome.state.presetId,
      pendingLocation: presetLocation(slug),
    });
  };

  router.patch('/api/v1/presets/:slug', write, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const body = ctx.state.body;
    const decoded = PatchBody.decode(body);
    // A key PATCH does not know is refused, not ignored: a misspelt field would otherwise change nothing, silently.
    const unknown: ValidationProblem[] =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? Object.keys(body)
            .filter((k) => !PATCH_KEYS.includes(k))
            .map((k) => ({ path: `$.${k}`, message: `unknown field; PATCH takes ${PATCH_KEYS.join(', ')}` }))
        : []; // not an object: the codec has said so
    const problems = [...(E.isLeft(decoded) ? formatErrors(decoded.left) : []), ...unknown];
    if (E.isLeft(decoded) || problems.length > 0) {
      throw badRequest(
        'the body must be an object with any of "name" (1–200 characters), "description" (at most 2,000, or null) and "status" (active, disabled or archived)',
        problems,
      );
    }
    await run(ctx, { type: 'ChangePreset', ...decoded.right, note: noteOf(ctx) });
  });

  // Deleting archives: events are never erased, and the slug stays taken.
  router.delete('/api/v1/presets/:slug', write, async (ctx) => {
    await run(ctx, { type: 'ChangePreset', status: 'archived', note: noteOf(ctx) });
  });

  router.param('label', async (label, ctx, next) => {
    if (!LABEL.test(label)) {
      throw badRequest('invalid label', [
        { path: 'label', message: 'must be 1–36 characters of a–z 0–9 _ . -, starting with a letter or digit' },
      ]);
    }
    if (RESERVED_LABELS.includes(label)) {
      throw badRequest('this label name is reserved', [
        { path: 'label', message: `${JSON.stringify(label)} always means the newest version` },
      ]);
    }
    await next();
  });

  router.put('/api/v1/presets/:slug/labels/:label', write, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const body = LabelBody.decode(ctx.state.body);
    if (E.isLeft(body))
      throw badRequest('the body must be {"version": N} with N a version number from 1, and an optional "note"', formatErrors(body.left));
    await run(ctx, { type: 'MoveLabel', label: ctx.params.label!, version: body.right.version, note: noteOf(ctx, body.right.note) });
  });

  router.delete('/api/v1/presets/:slug/labels/:label', write, async (ctx) => {
    await run(ctx, { type: 'RemoveLabel', label: ctx.params.label!, note: noteOf(ctx) });
  });
};
