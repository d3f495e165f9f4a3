import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ParameterizedContext } from 'koa';
import { charsBetween, integerBetween, maxChars, nullable, refine } from '../../formats/codecs';
import type { PresetCommandRequest } from '../../presets/handler';
import { PresetStatus } from '../../presets/events';
import { LABEL, RESERVED_LABELS } from '../../presets/names';
import { formatErrors, type ValidationProblem } from '../../validation';
import { badRequest } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { NoteField, noteOf } from '../note';
import type { AppContext, AppState } from '../types';
import { VersionNumber } from './designate';
import { answerMoveOrProposal } from './release';
import { ifMatchOf, requestedBy, type WriteDeps } from './writes';

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

/** A split label's versions: 2–10 of them, each with a relative weight (they need not add up to 100). */
export const MIN_SPLIT_VERSIONS = 2;
export const MAX_SPLIT_VERSIONS = 10;
export const MAX_SPLIT_WEIGHT = 10_000;
export const SplitEntry = t.type({ version: VersionNumber, weight: integerBetween(1, MAX_SPLIT_WEIGHT) }, 'SplitEntry');
export const SplitLabelBody = t.intersection(
  [
    t.type({
      split: refine(
        t.array(SplitEntry),
        (a) => a.length >= MIN_SPLIT_VERSIONS && a.length <= MAX_SPLIT_VERSIONS,
        `${MIN_SPLIT_VERSIONS} to ${MAX_SPLIT_VERSIONS} versions`,
        { minItems: MIN_SPLIT_VERSIONS, maxItems: MAX_SPLIT_VERSIONS },
      ),
    }),
    t.partial({ note: NoteField }),
  ],
  'SplitLabelBody',
);
/** What PUT takes: a label on one version, or split between versions. */
export const PutLabelBody = t.union([LabelBody, SplitLabelBody], 'PutLabelBody');

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** The split of a PUT body, or its problems (with JSON paths): the codec's, and versions named twice. */
const splitOf = (body: unknown): t.TypeOf<typeof SplitLabelBody> | ValidationProblem[] => {
  if (isObject(body) && 'version' in body) return [{ path: '$', message: 'give "version" or "split", not both' }];
  const decoded = SplitLabelBody.decode(body);
  if (E.isLeft(decoded)) return formatErrors(decoded.left);
  const seen = new Set<number>();
  const twice = decoded.right.split.flatMap(({ version }, i) =>
    seen.has(version)
      ? [{ path: `$.split[${i}].version`, message: `version ${version} is named twice: each version once` }]
      : (seen.add(version), []),
  );
  return twice.length > 0 ? twice : decoded.right;
};

type Ctx = ParameterizedContext<AppState, AppContext>;

/** A route's `:label` (every route that names one; `checkParams` in app.ts): a label's name, not a reserved word. */
export const checkLabel = (label: string): void => {
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
};

/** A command of this router: its type and data, without the preset the path names; the metadata is the caller's. */
type Command = PresetCommandRequest extends infer C
  ? C extends PresetCommandRequest & {
      type: 'ChangePreset' | 'ArchivePreset' | 'RestorePreset' | 'MoveLabel' | 'RemoveLabel' | 'SplitLabel';
    }
    ? { type: C['type']; data: Omit<C['data'], 'workspaceId' | 'slug'> }
    : never
  : never;

export const lifecycleRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  const write = requireScope('presets:write');

  /** Runs a command on the preset named in the path, and answers with the preset as it left it (or the proposal it became). */
  const run = async (ctx: Ctx, { type, data }: Command) => {
    const slug = ctx.params.slug!;
    const request = { type, data: { workspaceId: ctx.state.workspaceId, slug, ...data }, metadata: requestedBy(ctx) };
    const outcome = await deps.handle(request as PresetCommandRequest, ifMatchOf(ctx));
    await answerMoveOrProposal(ctx, deps, slug, outcome);
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
    // An empty PATCH would answer as if something had been changed: say that nothing was asked.
    if (PATCH_KEYS.every((k) => (decoded.right as Record<string, unknown>)[k] === undefined)) {
      throw badRequest('nothing to change', [{ path: '$', message: `give at least one of ${PATCH_KEYS.join(', ')}` }]);
    }
    await run(ctx, { type: 'ChangePreset', data: { ...decoded.right, note: noteOf(ctx) } });
  });

  // Deleting archives, as OpenRouter does: events are never erased, and the slug stays taken.
  // An archived preset answers 200 again; a disabled one is a 409.
  router.delete('/api/v1/presets/:slug', write, async (ctx) => {
    await run(ctx, { type: 'ArchivePreset', data: { note: noteOf(ctx) } });
  });

  // OpenRouter's restore: archived → active, with no new version and the designation unchanged.
  router.post('/api/v1/presets/:slug/restore', write, async (ctx) => {
    await run(ctx, { type: 'RestorePreset', data: { note: noteOf(ctx) } });
  });

  // One command path for a move and a split: a label change is decided the same way either way.
  router.put('/api/v1/presets/:slug/labels/:label', write, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const label = ctx.params.label!;
    if (isObject(ctx.state.body) && 'split' in ctx.state.body) {
      const split = splitOf(ctx.state.body);
      if (Array.isArray(split)) {
        throw badRequest(
          `the body must be {"split": [{"version": N, "weight": W}, …]} with ${MIN_SPLIT_VERSIONS}–${MAX_SPLIT_VERSIONS} distinct versions and whole weights from 1 to ${MAX_SPLIT_WEIGHT.toLocaleString('en')}, and an optional "note"`,
          split,
        );
      }
      await run(ctx, { type: 'SplitLabel', data: { label, split: split.split, note: noteOf(ctx, split.note) } });
      return;
    }
    const body = LabelBody.decode(ctx.state.body);
    if (E.isLeft(body))
      throw badRequest(
        'the body must be {"version": N} with N a version number from 1, or {"split": [{"version": N, "weight": W}, …]}, and an optional "note"',
        formatErrors(body.left),
      );
    await run(ctx, { type: 'MoveLabel', data: { label, version: body.right.version, note: noteOf(ctx, body.right.note) } });
  });

  router.delete('/api/v1/presets/:slug/labels/:label', write, async (ctx) => {
    await run(ctx, { type: 'RemoveLabel', data: { label: ctx.params.label!, note: noteOf(ctx) } });
  });
};
